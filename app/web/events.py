"""Which deliveries become jobs, and the job key that coalesces them (`owner/repo#N`)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, StringConstraints, ValidationError

# Printable, bounded text: these end up in indexed columns (PostgreSQL refuses NUL bytes).
Name = Annotated[str, StringConstraints(min_length=1, max_length=140, pattern=r"^[^\x00-\x1f]+$")]
Action = Annotated[str, StringConstraints(min_length=1, max_length=60, pattern=r"^[^\x00-\x1f]+$")]

HANDLED_ACTIONS: dict[str, frozenset[str] | None] = {
    "issues": frozenset({"opened", "edited", "reopened"}),
    "pull_request": frozenset({"opened", "synchronize", "edited", "ready_for_review", "reopened"}),
    "issue_comment": frozenset({"created"}),
    "installation": None,  # every action
    "installation_repositories": None,
}


class InvalidPayload(ValueError):
    """A handled event whose payload lacks the fields every such event has."""


class _Repo(BaseModel):
    full_name: Name


class _Numbered(BaseModel):
    number: int


class _Identified(BaseModel):
    id: int


class _Envelope(BaseModel):
    action: Action | None = None


class _IssueEvent(BaseModel):
    repository: _Repo
    issue: _Numbered


class _PullRequestEvent(BaseModel):
    repository: _Repo
    number: int


class _CommentEvent(_IssueEvent):
    comment: _Identified


class _InstallationEvent(BaseModel):
    installation: _Identified


class Route(BaseModel):
    action: str | None
    repo: str | None
    job_key: str


def _merged(payload: dict[str, Any]) -> bool:
    return (payload.get("pull_request") or {}).get("merged") is True


def route_delivery(event: str, payload: dict[str, Any]) -> Route | None:
    """The job route of a delivery, or None when the service ignores it."""
    try:
        action = _Envelope.model_validate(payload).action
        if event not in HANDLED_ACTIONS:
            return None
        if event == "pull_request" and action == "closed" and _merged(payload):
            # A merge is harvested (app.harvest.live) under its own key, never folded into
            # (or replacing) a pending triage run of the PR.
            pr = _PullRequestEvent.model_validate(payload)
            repo = pr.repository.full_name
            return Route(action=action, repo=repo, job_key=f"{repo}#{pr.number}/merged")
        actions = HANDLED_ACTIONS[event]
        if actions is not None and action not in actions:
            return None
        if event == "issues":
            issue = _IssueEvent.model_validate(payload)
            repo = issue.repository.full_name
            return Route(action=action, repo=repo, job_key=f"{repo}#{issue.issue.number}")
        if event == "pull_request":
            pr = _PullRequestEvent.model_validate(payload)
            repo = pr.repository.full_name
            return Route(action=action, repo=repo, job_key=f"{repo}#{pr.number}")
        if event == "issue_comment":
            # Commands get their own key: folding `/spice explain` into a pending run of the
            # same issue would drop it.
            comment = _CommentEvent.model_validate(payload)
            repo = comment.repository.full_name
            key = f"{repo}#{comment.issue.number}/comment/{comment.comment.id}"
            return Route(action=action, repo=repo, job_key=key)
        installation = _InstallationEvent.model_validate(payload).installation.id
        return Route(action=action, repo=None, job_key=f"installation/{installation}")
    except ValidationError as exc:
        fields = ", ".join(".".join(map(str, err["loc"])) for err in exc.errors()[:5])
        raise InvalidPayload(f"{event} payload: missing or invalid {fields}") from exc

"""Which deliveries become jobs, and the job key that coalesces them (`owner/repo#N`).

The envelope is read with msgspec straight from the body: it validates the whole document as
JSON but builds objects only for the handful of fields routing reads, in a third of the
time of parsing everything (orjson) and then validating a few fields (pydantic).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from pydantic import BaseModel

# Printable, bounded text: these end up in indexed columns (PostgreSQL refuses NUL bytes).
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=140, pattern=r"^[^\x00-\x1f]+$")]
Action = Annotated[str, msgspec.Meta(min_length=1, max_length=60, pattern=r"^[^\x00-\x1f]+$")]

HANDLED_ACTIONS: dict[str, frozenset[str] | None] = {
    "issues": frozenset({"opened", "edited", "reopened"}),
    "pull_request": frozenset({"opened", "synchronize", "edited", "ready_for_review", "reopened"}),
    "issue_comment": frozenset({"created"}),
    "installation": None,  # every action
    "installation_repositories": None,
}


class MalformedBody(ValueError):
    """Not a JSON object: answered 400 before anything else is looked at."""


class InvalidPayload(ValueError):
    """A handled event whose payload lacks the fields every such event has."""


class _Repo(msgspec.Struct):
    full_name: Name


class _Numbered(msgspec.Struct):
    number: int


class _Identified(msgspec.Struct):
    id: int


class _PullRequest(msgspec.Struct):
    merged: bool | None = None


class _Action(msgspec.Struct):
    """Every event: only the action is read (ignored events are never looked at further)."""

    action: Action | None = None


class _Envelope(msgspec.Struct):
    """What routing reads of a handled event; which fields must be there depends on it."""

    action: Action | None = None
    repository: _Repo | None = None
    issue: _Numbered | None = None
    number: int | None = None
    comment: _Identified | None = None
    installation: _Identified | None = None
    pull_request: _PullRequest | None = None


class Route(BaseModel):
    action: str | None
    repo: str | None
    job_key: str


_HANDLED = msgspec.json.Decoder(_Envelope)
_OTHER = msgspec.json.Decoder(_Action)


def route_body(event: str, body: bytes) -> Route | None:
    """The job route of a delivery's raw body, or None when the service ignores it.

    Raises `MalformedBody` for anything but a JSON object, `InvalidPayload` for a handled
    event without the fields it must have.
    """
    envelope: _Envelope | _Action
    try:
        envelope = _HANDLED.decode(body) if event in HANDLED_ACTIONS else _OTHER.decode(body)
    except msgspec.ValidationError as exc:
        if str(exc).startswith("Expected `object`"):
            raise MalformedBody("expected a JSON object") from exc
        raise InvalidPayload(f"{event} payload: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise MalformedBody("body is not valid JSON") from exc
    return _route(event, envelope)


def route_delivery(event: str, payload: dict[str, Any]) -> Route | None:
    """`route_body` for a payload already parsed (the CLI, harvesting, tests)."""
    envelope: _Envelope | _Action
    try:
        if event in HANDLED_ACTIONS:
            envelope = msgspec.convert(payload, _Envelope)
        else:
            envelope = msgspec.convert(payload, _Action)
    except msgspec.ValidationError as exc:
        raise InvalidPayload(f"{event} payload: {exc}") from exc
    return _route(event, envelope)


def _route(event: str, envelope: _Envelope | _Action) -> Route | None:
    action = envelope.action
    if not isinstance(envelope, _Envelope):
        return None
    if event == "pull_request" and action == "closed":
        if envelope.pull_request is None or envelope.pull_request.merged is not True:
            return None
        # A merge is harvested (app.harvest.live) under its own key, never folded into
        # (or replacing) a pending triage run of the PR.
        repo, number = _required(event, envelope.repository, envelope.number)
        return Route(action=action, repo=repo, job_key=f"{repo}#{number}/merged")
    actions = HANDLED_ACTIONS[event]
    if actions is not None and action not in actions:
        return None
    if event == "issues":
        repo, number = _required(event, envelope.repository, envelope.issue)
        return Route(action=action, repo=repo, job_key=f"{repo}#{number}")
    if event == "pull_request":
        repo, number = _required(event, envelope.repository, envelope.number)
        return Route(action=action, repo=repo, job_key=f"{repo}#{number}")
    if event == "issue_comment":
        # Commands get their own key: folding `/spice explain` into a pending run of the
        # same issue would drop it.
        repo, number = _required(event, envelope.repository, envelope.issue)
        if envelope.comment is None:
            raise InvalidPayload(f"{event} payload: missing comment.id")
        key = f"{repo}#{number}/comment/{envelope.comment.id}"
        return Route(action=action, repo=repo, job_key=key)
    if envelope.installation is None:
        raise InvalidPayload(f"{event} payload: missing installation.id")
    return Route(action=action, repo=None, job_key=f"installation/{envelope.installation.id}")


def _required(event: str, repo: _Repo | None, number: _Numbered | int | None) -> tuple[str, int]:
    missing = [
        name
        for name, value in (("repository.full_name", repo), ("number", number))
        if value is None
    ]
    if missing:
        raise InvalidPayload(f"{event} payload: missing {', '.join(missing)}")
    assert repo is not None and number is not None
    return repo.full_name, number if isinstance(number, int) else number.number

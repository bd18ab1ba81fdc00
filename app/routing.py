"""Which deliveries become jobs, of which kind, under which key: decided here, once.

The web process calls `route_body` before storing a delivery; the worker calls
`route_payload` on the stored payload to pick the handler. The fields routing reads are
validated (GitHub's number range, `owner/name` shape): a signed payload is still input.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
import orjson
from pydantic import BaseModel

MAX_NUMBER = 2**31 - 1  # issue and PR numbers are GitHub Int (32-bit) values
MAX_ID = 2**63 - 1
Number = Annotated[int, msgspec.Meta(ge=1, le=MAX_NUMBER)]
Identifier = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]
# GitHub owners: letters, digits, hyphens (39 max); names: letters, digits, `-._` (100 max).
FullName = Annotated[
    str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$")
]
Action = Annotated[str, msgspec.Meta(min_length=1, max_length=60, pattern=r"^[a-z_]+$")]
Kind = Literal["issue", "pull_request", "comment", "harvest", "installation", "label"]

HANDLED_ACTIONS: dict[str, frozenset[str] | None] = {
    "issues": frozenset({"opened", "edited", "reopened", "labeled", "unlabeled"}),
    "pull_request": frozenset(
        {"opened", "synchronize", "edited", "ready_for_review", "reopened", "labeled", "unlabeled"}
    ),
    "issue_comment": frozenset({"created"}),
    "installation": None,  # every action
    "installation_repositories": None,
}


class MalformedBody(ValueError):
    """Not a JSON object: answered 400 before anything else is looked at."""


class InvalidPayload(ValueError):
    """A handled event whose payload lacks or mangles the fields every such event has."""


class _Repo(msgspec.Struct):
    full_name: FullName


class _Numbered(msgspec.Struct):
    number: Number


class _Identified(msgspec.Struct):
    id: Identifier


class _Label(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class _PullRequest(msgspec.Struct):
    merged: bool | None = None


class _Envelope(msgspec.Struct):
    """What routing reads of a handled event; which fields must be there depends on it."""

    action: Action | None = None
    repository: _Repo | None = None
    issue: _Numbered | None = None
    number: Number | None = None
    comment: _Identified | None = None
    installation: _Identified | None = None
    pull_request: _PullRequest | None = None
    label: _Label | None = None


class Route(BaseModel):
    kind: Kind
    action: str | None
    repo: str | None
    number: int | None
    job_key: str


def parse_body(body: bytes) -> dict[str, Any]:
    """The body as a JSON object; strict UTF-8 and at most 1,024 levels deep (orjson)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise MalformedBody(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise MalformedBody("expected a JSON object")
    return data


def route_body(event: str, body: bytes) -> Route | None:
    """`route_payload` of a raw body; raises `MalformedBody` for anything but a JSON object."""
    return route_payload(event, parse_body(body))


def route_payload(event: str, payload: dict[str, Any]) -> Route | None:
    """The job route of a delivery, or None when the service ignores it.

    Raises `InvalidPayload` for a handled event without the fields it must have.
    """
    if event not in HANDLED_ACTIONS:
        return None
    try:
        envelope = msgspec.convert(payload, _Envelope)
    except msgspec.ValidationError as exc:
        raise InvalidPayload(f"{event} payload: {exc}") from exc
    return _route(event, envelope)


def _route(event: str, envelope: _Envelope) -> Route | None:
    action = envelope.action
    if event == "pull_request" and action == "closed":
        if envelope.pull_request is None or envelope.pull_request.merged is not True:
            return None
        # A merge is harvested under its own key, never folded into (or replacing) a
        # pending triage run of the PR.
        repo, number = _required(event, envelope.repository, envelope.number)
        return Route(
            kind="harvest", action=action, repo=repo, number=number,
            job_key=f"{repo}#{number}/merged",
        )  # fmt: skip
    actions = HANDLED_ACTIONS[event]
    if actions is not None and action not in actions:
        return None
    if event in ("issues", "pull_request"):
        item = envelope.issue if event == "issues" else envelope.number
        repo, number = _required(event, envelope.repository, item)
        if action in ("labeled", "unlabeled"):
            # A person's label change is feedback, kept apart from the item's triage run;
            # each label and direction once (a removal and an addition both count).
            name = envelope.label.name if envelope.label else ""
            key = f"{repo}#{number}/label/{action}/{name}"
            return Route(kind="label", action=action, repo=repo, number=number, job_key=key)
        kind: Kind = "issue" if event == "issues" else "pull_request"
        return Route(kind=kind, action=action, repo=repo, number=number, job_key=f"{repo}#{number}")
    if event == "issue_comment":
        # Commands get their own key: folding `/spice explain` into a pending run of the
        # same issue would drop it.
        repo, number = _required(event, envelope.repository, envelope.issue)
        if envelope.comment is None:
            raise InvalidPayload(f"{event} payload: missing comment.id")
        key = f"{repo}#{number}/comment/{envelope.comment.id}"
        return Route(kind="comment", action=action, repo=repo, number=number, job_key=key)
    if envelope.installation is None:
        raise InvalidPayload(f"{event} payload: missing installation.id")
    return Route(
        kind="installation", action=action, repo=None, number=None,
        job_key=f"installation/{envelope.installation.id}",
    )  # fmt: skip


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

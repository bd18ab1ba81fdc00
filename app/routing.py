"""Which deliveries become jobs, of which kind, under which key: decided here, once.

`EVENTS` is the one table: per event and actions, the job kind, the job key, the condition
checked at the door, the pre-filter the worker applies before any GitHub call and the handler.
The web process routes a delivery with it (`route_body`) and stores the route beside the
payload; the worker dispatches on the stored kind and never routes again. Each handler is
imported by a small function of this module, called by the worker only: the web process
imports none of them. The fields routing reads
are validated (GitHub's number range, `owner/name` shape): a signed payload is still input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import orjson
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from app.handlers.outcome import Done
    from app.handlers.run_context import RunContext

MAX_NUMBER = 2**31 - 1  # issue and PR numbers are GitHub Int (32-bit) values
MAX_ID = 2**63 - 1
Number = Annotated[int, msgspec.Meta(ge=1, le=MAX_NUMBER)]
Identifier = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]
# GitHub owners: letters, digits, hyphens (39 max); names: letters, digits, `-._` (100 max).
FullName = Annotated[
    str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$")
]
Action = Annotated[str, msgspec.Meta(min_length=1, max_length=60, pattern=r"^[a-z_]+$")]
Kind = Annotated[str, Field(pattern=r"^[a-z_]{1,20}$")]
"""A job kind: the `kind` of one entry of `EVENTS`."""


Handler = Callable[["RunContext", dict[str, Any]], "Done"]
"""Every handler's one signature: the run's context and the payload in, a typed result out
(or `Skipped` / `Failed` raised: app.handlers.outcome)."""
PreFilter = Callable[[dict[str, Any]], str | None]


class MalformedBody(ValueError):
    """Not a JSON object: answered 400 before anything else is looked at."""


class InvalidPayload(ValueError):
    """A handled event whose payload lacks or mangles the fields every such event has."""


class UnknownKind(LookupError):
    """A stored route names a kind no entry of the table has (the table lost an event)."""


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
    repositories_removed: list[_Repo] | None = None
    repositories_added: list[_Repo] | None = None


class Route(BaseModel):
    """Where a delivery goes: decided at the door, stored with the delivery, read by the
    worker as it was stored."""

    kind: Kind
    action: str | None
    repo: str | None
    number: int | None
    job_key: str
    installation: int | None = None
    event: str = ""
    repos: tuple[str, ...] = ()
    """The repositories an `installation_repositories` event takes away or gives back."""


Place = tuple[str | None, int | None, str]
"""(repository, number, job key)"""


@dataclass(frozen=True)
class EventEntry:
    """One row of the event table."""

    event: str
    actions: frozenset[str]
    kind: Kind
    place: Callable[[str, _Envelope], Place]
    """The job's repository, number and key; raises `InvalidPayload` when fields are missing."""
    handler: Callable[[], Handler] | None
    """The worker's handler, imported when asked for (the web process imports none); None:
    applied at the door (`INSTALLATION`)."""
    accepts: Callable[[_Envelope], bool] | None = None
    """At the door: False answers the delivery 200 ignored (e.g. a PR closed unmerged)."""
    pre_filter: Callable[[], PreFilter] | None = None
    """Run by the worker before any GitHub call (our own comments and labels come back as
    events): a skip reason, or None."""


def item_place(event: str, env: _Envelope) -> Place:
    """An issue's or PR's triage: one key per item, so bursts coalesce."""
    repo, number = _required(event, env.repository, env.issue if event == "issues" else env.number)
    return repo, number, f"{repo}#{number}"


def _label_change(event: str, env: _Envelope) -> Place:
    # A person's label change is feedback, kept apart from the item's triage run; each label
    # and direction once (a removal and an addition both count).
    repo, number, key = item_place(event, env)
    return repo, number, f"{key}/label/{env.action}/{env.label.name if env.label else ''}"


def _merge(event: str, env: _Envelope) -> Place:
    # Harvested under its own key, never folded into a pending triage run of the PR.
    repo, number, key = item_place(event, env)
    return repo, number, f"{key}/merged"


def _command(event: str, env: _Envelope) -> Place:
    # Commands get their own key: folding `/spice explain` into a pending run would drop it.
    repo, number = _required(event, env.repository, env.issue)
    if env.comment is None:
        raise InvalidPayload(f"{event} payload: missing comment.id")
    return repo, number, f"{repo}#{number}/comment/{env.comment.id}"


def installation_place(event: str, env: _Envelope) -> Place:
    if env.installation is None:
        raise InvalidPayload(f"{event} payload: missing installation.id")
    return None, None, f"installation/{env.installation.id}"


def _merged(env: _Envelope) -> bool:
    return env.pull_request is not None and env.pull_request.merged is True


INSTALLATION = "installation"
"""The kind applied at the door: no job, the change is made as the delivery is stored."""
ITEM_ACTIONS = frozenset({"opened", "edited", "reopened"})
LABEL_ACTIONS = frozenset({"labeled", "unlabeled"})


# The handlers, each imported only when the worker asks for it; a reader, mypy and
# go-to-definition follow every entry to its function.
def _issues() -> Handler:
    from app.handlers.issues import on_issue

    return on_issue


def _pull_requests() -> Handler:
    from app.handlers.pull_requests import on_pull_request

    return on_pull_request


def _merges() -> Handler:
    from app.handlers.merges import handle_merge

    return handle_merge


def _comments() -> Handler:
    from app.handlers.comments import handle_comment

    return handle_comment


def _not_a_command() -> PreFilter:
    from app.handlers.comments import not_a_command

    return not_a_command


def _corrections() -> Handler:
    from app.handlers.corrections import handle_label_change

    return handle_label_change


def _not_a_correction() -> PreFilter:
    from app.handlers.corrections import not_a_correction

    return not_a_correction


PR_ACTIONS = ITEM_ACTIONS | {"synchronize", "ready_for_review"}
EVENTS: list[EventEntry] = [
    EventEntry("issues", ITEM_ACTIONS, "issue", item_place, _issues),
    EventEntry("pull_request", PR_ACTIONS, "pull_request", item_place, _pull_requests),
    EventEntry("pull_request", frozenset({"closed"}), "harvest", _merge, _merges, _merged),
    EventEntry(
        "issue_comment", frozenset({"created"}), "comment", _command, _comments,
        pre_filter=_not_a_command,
    ),
    *(
        EventEntry(
            event, LABEL_ACTIONS, "label", _label_change, _corrections,
            pre_filter=_not_a_correction,
        )
        for event in ("issues", "pull_request")
    ),
    # Installation events change what may run: applied where they come in, in the intake
    # transaction (app.store.installations), never queued behind the jobs they concern.
    *(
        EventEntry(event, frozenset(actions), INSTALLATION, installation_place, None)
        for event, actions in (
            ("installation", ("deleted", "suspend", "unsuspend")),
            ("installation_repositories", ("removed", "added")),
        )
    ),
]  # fmt: skip
HANDLED_EVENTS = frozenset(entry.event for entry in EVENTS)


def entry_for(
    event: str, action: str | None, table: list[EventEntry] | None = None
) -> EventEntry | None:
    return next((e for e in table or EVENTS if e.event == event and action in e.actions), None)


def entry_of(kind: str, table: list[EventEntry] | None = None) -> EventEntry:
    """The entry a stored route names (every kind has one handler)."""
    found = next((e for e in table or EVENTS if e.kind == kind), None)
    if found is None:
        raise UnknownKind(f"no entry of the event table handles jobs of kind {kind!r}")
    return found


def parse_body(body: bytes) -> dict[str, Any]:
    """The body as a JSON object; strict UTF-8 and at most 1,024 levels deep (orjson)."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise MalformedBody(f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise MalformedBody("expected a JSON object")
    return data


def route_body(event: str, body: bytes, table: list[EventEntry] | None = None) -> Route | None:
    """`route_payload` of a raw body; raises `MalformedBody` for anything but a JSON object."""
    return route_payload(event, parse_body(body), table)


def route_payload(
    event: str, payload: dict[str, Any], table: list[EventEntry] | None = None
) -> Route | None:
    """The job route of a delivery, or None when the service ignores it.

    Raises `InvalidPayload` for a handled event without the fields it must have.
    """
    if event not in {e.event for e in table or EVENTS}:
        return None
    try:
        envelope = msgspec.convert(payload, _Envelope)
    except msgspec.ValidationError as exc:
        raise InvalidPayload(f"{event} payload: {exc}") from exc
    entry = entry_for(event, envelope.action, table)
    if entry is None or (entry.accepts is not None and not entry.accepts(envelope)):
        return None
    repo, number, key = entry.place(event, envelope)
    installation = envelope.installation.id if envelope.installation else None
    named = envelope.repositories_removed or envelope.repositories_added or ()
    repos = tuple(r.full_name for r in named)
    return Route(
        kind=entry.kind, action=envelope.action, repo=repo, number=number, job_key=key,
        installation=installation, event=event, repos=repos,
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

"""Which deliveries become jobs, of which kind, under which key: decided here, once.

`EVENTS` is the one table of the door: per event and actions, the job kind, the job key and
the condition checked at the door. The web process routes a delivery with it (`route_body`)
and stores the route beside the payload; the worker dispatches on the stored kind to the
handler registered for it (app.handlers.table) and never routes again: the web process
imports no handler. The fields routing reads are validated first (app.webhook_envelope).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from pydantic import BaseModel, Field

from app.webhook_envelope import (
    Envelope,
    InvalidPayload,
    Numbered,
    Repo,
    parse_body,
)

Kind = Annotated[str, Field(pattern=r"^[a-z_]{1,20}$")]
"""A job kind: the `kind` of one entry of `EVENTS`."""


class UnknownKind(LookupError):
    """A stored route names a kind no entry of the table has (the table lost an event)."""


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
    place: Callable[[str, Envelope], Place]
    """The job's repository, number and key; raises `InvalidPayload` when fields are missing."""
    accepts: Callable[[Envelope], bool] | None = None
    """At the door: False answers the delivery 200 ignored (e.g. a PR closed unmerged)."""


def item_place(event: str, env: Envelope) -> Place:
    """An issue's or PR's triage: one key per item, so bursts coalesce."""
    repo, number = _required(event, env.repository, env.issue if event == "issues" else env.number)
    return repo, number, f"{repo}#{number}"


def _label_change(event: str, env: Envelope) -> Place:
    # A person's label change is feedback, kept apart from the item's triage run; each label
    # and direction once (a removal and an addition both count).
    repo, number, key = item_place(event, env)
    return repo, number, f"{key}/label/{env.action}/{env.label.name if env.label else ''}"


def _merge(event: str, env: Envelope) -> Place:
    # Harvested under its own key, never folded into a pending triage run of the PR.
    repo, number, key = item_place(event, env)
    return repo, number, f"{key}/merged"


def _command(event: str, env: Envelope) -> Place:
    # Commands get their own key: folding `/spice explain` into a pending run would drop it.
    repo, number = _required(event, env.repository, env.issue)
    if env.comment is None:
        raise InvalidPayload(f"{event} payload: missing comment.id")
    return repo, number, f"{repo}#{number}/comment/{env.comment.id}"


def installation_place(event: str, env: Envelope) -> Place:
    if env.installation is None:
        raise InvalidPayload(f"{event} payload: missing installation.id")
    return None, None, f"installation/{env.installation.id}"


def _merged(env: Envelope) -> bool:
    return env.pull_request is not None and env.pull_request.merged is True


INSTALLATION = "installation"
"""The kind applied at the door: no job, the change is made as the delivery is stored."""
ITEM_ACTIONS = frozenset({"opened", "edited", "reopened"})
LABEL_ACTIONS = frozenset({"labeled", "unlabeled"})


PR_ACTIONS = ITEM_ACTIONS | {"synchronize", "ready_for_review"}
EVENTS: list[EventEntry] = [
    EventEntry("issues", ITEM_ACTIONS, "issue", item_place),
    EventEntry("pull_request", PR_ACTIONS, "pull_request", item_place),
    EventEntry("pull_request", frozenset({"closed"}), "harvest", _merge, _merged),
    EventEntry("issue_comment", frozenset({"created"}), "comment", _command),
    *(
        EventEntry(event, LABEL_ACTIONS, "label", _label_change)
        for event in ("issues", "pull_request")
    ),
    # Installation events change what may run: applied where they come in, in the intake
    # transaction (app.store.installations), never queued behind the jobs they concern.
    *(
        EventEntry(event, frozenset(actions), INSTALLATION, installation_place)
        for event, actions in (
            ("installation", ("deleted", "suspend", "unsuspend")),
            ("installation_repositories", ("removed", "added")),
        )
    ),
]
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
        envelope = msgspec.convert(payload, Envelope)
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
        kind=entry.kind,
        action=envelope.action,
        repo=repo,
        number=number,
        job_key=key,
        installation=installation,
        event=event,
        repos=repos,
    )


def _required(event: str, repo: Repo | None, number: Numbered | int | None) -> tuple[str, int]:
    missing = [
        name
        for name, value in (("repository.full_name", repo), ("number", number))
        if value is None
    ]
    if missing:
        raise InvalidPayload(f"{event} payload: missing {', '.join(missing)}")
    assert repo is not None and number is not None
    return repo.full_name, number if isinstance(number, int) else number.number

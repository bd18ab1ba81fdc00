"""The event table (app.routing.EVENTS): routed once at the door, dispatched on the stored
kind, events without a handler answered at the door, installation removals handled."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app import routing
from app.handlers.deps import HandlerDeps, HandlerOutcome
from app.handlers.dispatch import resolve
from app.routing import EVENTS, EventEntry, Route, route_payload
from app.store.jobs import get_job
from tests.fakes.github_fixtures import fake_github_fixture  # noqa: F401
from tests.service.github_app import LiveApp, live_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
NOTED: list[tuple[str | None, int | None]] = []


def note_added(deps: HandlerDeps, route: Route, out: HandlerOutcome) -> None:
    """A handler a new event brings: the whole of its code."""
    NOTED.append((route.action, route.installation))
    out.pipeline = "welcome"


def test_a_new_event_runs_through_one_entry_and_one_handler(
    live: LiveApp, shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    added = hook(shared_data, "installation_repositories", "added.payload.json")
    assert route_payload("installation_repositories", added) is None  # answered 200 at the door
    welcome = EventEntry(
        "installation_repositories",
        frozenset({"added"}),
        "welcome",
        routing.installation_place,
        f"{__name__}:note_added",
        in_repository=False,
    )
    monkeypatch.setattr(routing, "EVENTS", [*EVENTS, welcome])
    NOTED.clear()
    live.post("installation_repositories", added)
    assert NOTED == [("added", 1)]
    assert live.job("installation/1").state == "done", live.job("installation/1").error


def test_every_entry_names_a_handler_and_pre_filter_that_exist() -> None:
    for entry in EVENTS:
        assert entry.handler is None or callable(resolve(entry.handler)), entry
        assert entry.pre_filter is None or callable(resolve(entry.pre_filter)), entry
    # A stored kind names one handler, whichever entry routed it.
    assert len({(e.kind, e.handler) for e in EVENTS}) == len({e.kind for e in EVENTS})


def test_the_worker_never_routes_a_stored_payload_again() -> None:
    found = subprocess.run(
        ["grep", "-rn", "route_payload\\|route_body", "app/queue", "app/worker_process.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert found.stdout == ""


def hook(shared_data: Path, event: str, name: str) -> dict[str, Any]:
    data = json.loads((shared_data / "webhooks" / event / name).read_text())
    data["installation"]["id"] = 1
    return dict(data)


@pytest.mark.parametrize(
    ("event", "name"),
    [
        ("installation", "deleted.payload.json"),
        ("installation_repositories", "removed.payload.json"),
    ],
)
def test_an_installation_change_is_applied_at_the_door_without_a_job(
    live: LiveApp, shared_data: Path, event: str, name: str
) -> None:
    live.post(event, hook(shared_data, event, name))
    assert live.statuses() == {"d-1": "applied"}
    with live.stack.sessions() as session:
        assert get_job(session, "installation/1") is None


def test_installation_events_without_a_handler_are_ignored_at_the_door(
    shared_data: Path,
) -> None:
    created = hook(shared_data, "installation", "created.payload.json")
    assert route_payload("installation", created) is None
    added = hook(shared_data, "installation_repositories", "added.payload.json")
    assert route_payload("installation_repositories", added) is None

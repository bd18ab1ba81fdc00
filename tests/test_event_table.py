"""The event table (app.routing.EVENTS): routed once at the door, dispatched on the stored
kind, events without a handler answered at the door, installation removals handled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app import routing
from app.handlers.outcome import Done
from app.handlers.run_context import RunContext
from app.handlers.table import HANDLERS, PRE_FILTERS
from app.routing import EVENTS, EventEntry, route_payload
from app.store.jobs import get_job
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload  # noqa: F401
from tests.service.github_app import LiveApp, live_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
NOTED: list[tuple[str, int]] = []


def note_closed(ctx: RunContext, payload: dict[str, Any]) -> Done:
    """A handler a new event brings: the whole of its code."""
    NOTED.append((ctx.repo.full_name, ctx.number))
    return ctx.done("closed")


def test_a_new_event_runs_through_one_entry_and_one_handler(
    live: LiveApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    closed = {**payload(live.gh, "issues", "opened", REPO, 7), "action": "closed"}
    assert route_payload("issues", closed) is None  # answered 200 at the door
    entry = EventEntry("issues", frozenset({"closed"}), "closed", routing.item_place)
    monkeypatch.setattr(routing, "EVENTS", [*EVENTS, entry])
    monkeypatch.setitem(HANDLERS, "closed", note_closed)
    NOTED.clear()
    live.post("issues", closed)
    assert NOTED == [(REPO, 7)]
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error


def test_every_routed_kind_has_a_handler_and_nothing_else_does() -> None:
    routed = {e.kind for e in EVENTS} - {routing.INSTALLATION}
    assert set(HANDLERS) == routed
    assert set(PRE_FILTERS) <= routed


def test_no_handler_is_named_by_a_string() -> None:
    found = subprocess.run(
        ["grep", "-rnE", "import_module|app\\.handlers\\.[a-z_]+:", "app"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert "handlers" not in found.stdout, found.stdout


def test_the_web_process_imports_no_handler() -> None:
    code = "import sys, app.web.app; print(sorted(m for m in sys.modules if 'app.handlers' in m))"
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert found.stdout.strip() == "[]", found.stderr


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
    route = route_payload("installation_repositories", added)
    assert route is not None and route.kind == routing.INSTALLATION  # gives a repository back
    assert route.repos == tuple(r["full_name"] for r in added["repositories_added"])

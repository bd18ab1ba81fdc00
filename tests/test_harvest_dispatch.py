"""The App's live path: a merged PR's delivery is accepted, dispatched and recorded as an instance."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from app.handlers.dispatch import handle_delivery
from app.routing import route_payload
from tests.fakes.github_fixtures import make_deps
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import store_at
from tests.test_harvest_live import merged, seed


def _closed(shared_data: Path) -> dict[str, Any]:
    path = shared_data / "webhooks" / "pull_request" / "closed.payload.json"
    return dict(json.loads(path.read_text()))


def test_intake_turns_merges_only_into_jobs(shared_data: Path) -> None:
    closed = _closed(shared_data)
    assert route_payload("pull_request", closed) is None  # closed without merge: ignored
    route = route_payload("pull_request", merged(closed))
    assert route is not None and route.kind == "harvest"
    # Its own key: a merge is never folded into (or replaces) a pending triage run.
    assert route.job_key == "Codertocat/Hello-World#2/merged"


def test_dispatch_records_the_merged_pr(
    shared_data: Path, tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    payload = merged(_closed(shared_data))
    url = f"sqlite:///{tmp_path / 'app.db'}"
    store = store_at(url)
    with FakeGitHub() as gh:
        seed(gh, payload)
        deps = make_deps(gh, fake_openai, database_url=url)
        out = handle_delivery("pull_request", copy.deepcopy(payload), "merge-1", deps)
        again = handle_delivery("pull_request", copy.deepcopy(payload), "merge-2", deps)
        writes = list(gh.writes)
    assert out.ok and again.ok, (out.failure, again.failure)
    assert out.done.pipeline == "harvest" and out.skipped is None
    (row,) = store.instances()
    assert row.instance["instance_id"] == "Codertocat__Hello-World-2"
    assert row.labels["labelled"] is True
    assert writes == []  # recording a merge writes nothing to GitHub

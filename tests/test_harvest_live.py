"""The live hook (a merged PR records its instance) and the per-installation request budget."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from app.handlers.dispatch import handle_delivery
from app.harvest.budget import RateBudget, RedisHourWindow
from app.harvest.live import record_merge
from app.harvest.runner import HarvestContext
from app.routing import route_payload
from tests.fakes.github_fixtures import make_deps, scripted
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import fake_source, sqlite_store, store_at

TEST_HUNK = "@@ -1,2 +1,3 @@\n def test_a():\n-    pass\n+    assert run()\n+    assert again()\n"
SRC_HUNK = "@@ -1,2 +1,2 @@\n def run():\n-    return 0\n+    return 1\n"


@pytest.fixture
def closed_payload(shared_data: Path) -> dict[str, Any]:
    path = shared_data / "webhooks" / "pull_request" / "closed.payload.json"
    return dict(json.loads(path.read_text()))


def merged(payload: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(payload)
    out["pull_request"].update(
        merged=True, merged_at="2019-05-16T10:00:00Z", body="Fixes #1 as discussed."
    )
    return out


def seed(gh: FakeGitHub, payload: dict[str, Any]) -> None:
    repo, pull = payload["repository"]["full_name"], payload["pull_request"]
    gh.add_issue(repo, 1, "Hello is broken", "It prints nothing.")
    gh.add_pull(
        repo,
        pull["number"],
        pull["title"],
        pull["body"],
        files=[
            {"filename": "hello.py", "patch": SRC_HUNK},
            {"filename": "tests/test_hello.py", "patch": TEST_HUNK},
        ],
        commits=["Make it print"],
        base_sha=pull["base"]["sha"],
    )


def test_only_merges_are_recorded(closed_payload: dict[str, Any]) -> None:
    assert closed_payload["pull_request"]["merged"] is False
    assert route_payload("pull_request", closed_payload) is None
    route = route_payload("pull_request", merged(closed_payload))
    assert route is not None and route.kind == "harvest"
    assert route_payload("issues", merged(closed_payload)) is None


def test_merge_records_the_instance_once(closed_payload: dict[str, Any], tmp_path: Path) -> None:
    payload = merged(closed_payload)
    with FakeGitHub() as gh:
        seed(gh, payload)
        store = sqlite_store(tmp_path)
        ctx = HarvestContext(source=fake_source(gh), store=store)
        first = record_merge(ctx, payload, label=False)
        again = record_merge(ctx, payload, label=False)  # a redelivery
    assert first.instance_id == again.instance_id == "Codertocat__Hello-World-2"
    (row,) = store.instances()
    assert row.instance["problem_statement"] == "Hello is broken\nIt prints nothing.\n"
    assert row.instance["base_commit"] == payload["pull_request"]["base"]["sha"]
    assert "tests/test_hello.py" in row.instance["test_patch"]
    assert "tests/" not in row.instance["patch"]


def test_budget_paces_requests_and_pauses_near_exhaustion() -> None:
    now = [1000.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    budget = RateBudget(per_hour=3600, burst=2, reserve=10, clock=lambda: now[0], sleep=sleep)
    budget.acquire()
    budget.acquire()
    assert slept == []
    budget.acquire()  # the bucket is empty: one request a second
    assert slept == [pytest.approx(1.0)]
    budget.observe({"X-RateLimit-Remaining": "5", "X-RateLimit-Reset": str(int(now[0]) + 120)})
    budget.acquire()
    assert sum(slept) == pytest.approx(121.0, abs=1.0)
    budget.observe({"X-RateLimit-Remaining": "4000", "X-RateLimit-Reset": "0"})
    assert budget.waited_s == pytest.approx(sum(slept))


def test_redis_window_caps_requests_across_processes() -> None:
    import uuid

    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis on 127.0.0.1:6379: {exc}")
    key = f"spice:test-budget:{uuid.uuid4().hex}"
    # Two "machines" sharing one installation's hourly cap of 3 requests.
    a, b = RedisHourWindow(client, key, 3), RedisHourWindow(client, key, 3)
    now = 7200.0 + 600
    assert [a.take(now), b.take(now), a.take(now)] == [0.0, 0.0, 0.0]
    assert b.take(now) == pytest.approx(3000.0)  # until the next clock hour
    assert a.take(now + 3600) == 0.0
    client.delete(f"{key}:2", f"{key}:3")


def test_the_repositorys_config_decides_whether_and_how_merges_are_harvested(
    closed_payload: dict[str, Any], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    payload = merged(closed_payload)
    repo = payload["repository"]["full_name"]
    url = f"sqlite:///{tmp_path / 'live.db'}"
    with FakeGitHub() as gh:
        seed(gh, payload)
        gh.put_file(repo, ".github/spice.yml", "pipelines: {harvest: false}\n")
        off = handle_delivery("pull_request", payload, "m-1", make_deps(gh, fake_openai))
        assert off.ok and off.skipped == "harvest is disabled in .github/spice.yml"
        assert fake_openai.requests == []

        gh.put_file(repo, ".github/spice.yml", "votes: 1\n")
        fake_openai.responder = scripted([1, 2, 1])
        deps = make_deps(gh, fake_openai, database_url=url)
        to_validate: list[str] = []
        deps.on_instance_saved = to_validate.append  # the worker enqueues validation here
        on = handle_delivery("pull_request", payload, "m-2", deps)
        assert (
            on.ok and on.done is not None and on.done.pipeline == "harvest" and on.skipped is None
        ), on
    (row,) = store_at(url).instances()
    assert to_validate == [row.instance["instance_id"]]
    assert [row.labels[d]["votes"] for d in ("clarity", "tests", "difficulty")] == [[1]] * 3
    assert all(r.get("n") in (None, 1) for r in fake_openai.requests)

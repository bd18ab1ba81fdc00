"""Job runs on the SQLite queue: outcome stored, coalescing, re-runs, retries with backoff."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest

from app.metrics import build_metrics
from app.queue.errors import DeliveryFailed
from app.routing import Route
from app.store.assessments import assessments_for
from app.store.deliveries import get_delivery
from app.store.jobs import claim_run, count_by_state, get_job
from tests.service.deliveries import issue_payload
from tests.service.settings import service_settings
from tests.service.stack import Stack, build_stack, promote_scheduled, run_ready_tasks
from tests.service.standin_handler import FileRecordingHandler, StandinOutcome

KEY = "Codertocat/Hello-World#9"


@pytest.fixture
def handler(tmp_path: Path) -> FileRecordingHandler:
    return FileRecordingHandler(tmp_path / "control")


def test_run_stores_assessment_and_metrics(tmp_path: Path, handler: FileRecordingHandler) -> None:
    metrics = build_metrics()
    stack = build_stack(service_settings(tmp_path), handler, metrics)
    assert stack.deliver(issue_payload(9), delivery_id="d1") == "queued"
    assert run_ready_tasks(stack.queue) == 1
    assert handler.lines("effects") == ["d1"]
    job = stack.job(KEY)
    assert (job.state, job.attempts, job.error) == ("done", 1, None)
    with stack.sessions() as session:
        rows = assessments_for(session, "Codertocat/Hello-World", 9)
        delivery = get_delivery(session, "d1")
    assert [(r.labels, r.votes, r.tokens_in, r.model) for r in rows] == [
        (
            ["spice:clarity-1"],
            [{"dimension": "clarity", "score": 1, "votes": [1, 1, 2]}],
            120,
            "openai/fake",
        )
    ]
    assert delivery is not None and delivery.status == "done"
    text = generate_latest(metrics.registry).decode()
    assert 'spice_llm_tokens_total{direction="input"} 120.0' in text
    assert "spice_llm_cost_usd_total 0.0002" in text
    assert "spice_label_latency_seconds_count 1.0" in text


def test_burst_runs_once_on_the_latest_delivery(
    tmp_path: Path, handler: FileRecordingHandler
) -> None:
    stack = build_stack(service_settings(tmp_path), handler)
    intakes = [stack.deliver(issue_payload(9, "edited"), delivery_id=f"d{i}") for i in range(5)]
    assert intakes == ["queued"] + ["coalesced"] * 4
    assert run_ready_tasks(stack.queue) == 1
    assert handler.lines("starts") == ["d4"]
    assert stack.job(KEY).state == "done"


def test_delivery_during_a_run_triggers_exactly_one_rerun(tmp_path: Path) -> None:
    stack: Stack | None = None
    calls: list[str] = []

    def handler(route: Route, payload: dict[str, Any], delivery_id: str) -> StandinOutcome:
        calls.append(delivery_id)
        if delivery_id == "first":
            # Two more edits land while this run is under way: neither enqueues a task.
            assert stack is not None
            assert stack.deliver(issue_payload(9, "edited"), delivery_id="second") == "coalesced"
            assert stack.deliver(issue_payload(9, "edited"), delivery_id="third") == "coalesced"
        return StandinOutcome(assessments=[])

    stack = build_stack(service_settings(tmp_path), handler)
    stack.deliver(issue_payload(9), delivery_id="first")
    assert run_ready_tasks(stack.queue) == 1
    assert calls == ["first", "third"]
    job = stack.job(KEY)
    assert (job.state, job.generation, job.run_generation) == ("done", 3, 3)
    assert stack.queue.huey.pending_count() == 0


def test_failures_retry_with_growing_delay_then_succeed(
    tmp_path: Path, handler: FileRecordingHandler
) -> None:
    (handler.control / "fail").write_text("2")
    stack = build_stack(service_settings(tmp_path, job_retry_delay_s=5), handler)
    stack.deliver(issue_payload(9), delivery_id="d1")
    delays = []
    for _ in range(2):
        run_ready_tasks(stack.queue)
        job = stack.job(KEY)
        assert job.state == "pending"
        assert job.error is not None and "scripted failure" in job.error
        [retry] = stack.queue.huey.scheduled()
        delays.append(round((retry.eta - datetime.now(UTC).replace(tzinfo=None)).total_seconds()))
        promote_scheduled(stack.queue)
    run_ready_tasks(stack.queue)
    # huey doubles the delay after each scheduled retry (retry_backoff=2).
    assert delays == [5, 10]
    assert handler.lines("effects") == ["d1"]
    job = stack.job(KEY)
    assert (job.state, job.attempts, job.error) == ("done", 3, None)


def test_retries_exhausted_marks_job_failed(tmp_path: Path, handler: FileRecordingHandler) -> None:
    (handler.control / "fail").write_text("99")
    stack = build_stack(service_settings(tmp_path, job_retries=1), handler)
    stack.deliver(issue_payload(9), delivery_id="d1")
    run_ready_tasks(stack.queue)
    promote_scheduled(stack.queue)
    run_ready_tasks(stack.queue)
    assert stack.queue.huey.scheduled() == []
    job = stack.job(KEY)
    assert (job.state, job.attempts) == ("failed", 2)
    with stack.sessions() as session:
        assert count_by_state(session) == {"failed": 1}
        delivery = get_delivery(session, "d1")
    assert delivery is not None and delivery.status == "failed"
    # A new delivery for a failed key starts over.
    (handler.control / "fail").write_text("0")
    assert stack.deliver(issue_payload(9, "edited"), delivery_id="d2") == "queued"
    run_ready_tasks(stack.queue)
    assert stack.job(KEY).state == "done"


def test_stale_running_job_is_recovered_once(tmp_path: Path, handler: FileRecordingHandler) -> None:
    lease_s = 600.0
    stack = build_stack(service_settings(tmp_path, job_lease_s=lease_s), handler)
    stack.deliver(issue_payload(9), delivery_id="d1")
    # Simulate a consumer that died after claiming: the task is gone, the job says running.
    task = stack.queue.huey.dequeue()
    assert task is not None
    with stack.sessions.begin() as session:
        assert claim_run(session, KEY) is not None
    assert stack.queue.recover() == []  # still inside its lease
    with stack.sessions.begin() as session:  # the lease runs out (the clock is not waited on)
        job = get_job(session, KEY)
        assert job is not None and job.started_at is not None
        job.started_at -= timedelta(seconds=lease_s + 1)
    assert stack.queue.recover() == ["d1"]
    assert stack.queue.recover() == []  # pending again and fresh: not recovered twice
    run_ready_tasks(stack.queue)
    assert handler.lines("effects") == ["d1"]
    assert stack.job(KEY).state == "done"


def test_task_for_unknown_delivery_is_a_no_op(
    tmp_path: Path, handler: FileRecordingHandler
) -> None:
    stack = build_stack(service_settings(tmp_path), handler)
    stack.queue.enqueue("never-stored")
    run_ready_tasks(stack.queue)
    assert handler.lines("starts") == []


def test_payload_reaches_the_handler_verbatim(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def handler(route: Route, payload: dict[str, Any], delivery_id: str) -> None:
        seen.append(payload)

    stack = build_stack(service_settings(tmp_path), handler)
    payload = issue_payload(9)
    payload["issue"]["body"] = "ünïcode ✓ and\x00nul"
    stack.deliver(payload)
    run_ready_tasks(stack.queue)
    assert json.dumps(seen) == json.dumps([payload])
    assert stack.job(KEY).state == "done"


def test_hopeless_failure_fails_at_once_without_retries(tmp_path: Path) -> None:
    def handler(route: Route, payload: dict[str, Any], delivery_id: str) -> None:
        raise DeliveryFailed("GitHub API error 404: Not Found", retryable=False)

    stack = build_stack(service_settings(tmp_path), handler)
    stack.deliver(issue_payload(9), delivery_id="d1")
    run_ready_tasks(stack.queue)
    assert stack.queue.huey.scheduled() == []  # no retry scheduled
    job = stack.job(KEY)
    assert (job.state, job.attempts) == ("failed", 1)
    assert job.error is not None and "404" in job.error


def test_redelivering_a_failed_delivery_runs_it_again_and_only_then(tmp_path: Path) -> None:
    # GitHub's "Redeliver" on a delivery whose job failed for good is a request to try again;
    # on one that was handled, or is still queued, it stays a duplicate.
    broken = {"now": True}

    def handler(route: Route, payload: dict[str, Any], delivery_id: str) -> None:
        if broken["now"]:
            raise DeliveryFailed("GitHub API error 404: Not Found", retryable=False)

    stack = build_stack(service_settings(tmp_path), handler)
    assert stack.deliver(issue_payload(9), delivery_id="d1") == "queued"
    assert stack.deliver(issue_payload(9), delivery_id="d1") == "duplicate"  # still pending
    run_ready_tasks(stack.queue)
    assert stack.job(KEY).state == "failed"

    broken["now"] = False
    assert stack.deliver(issue_payload(9), delivery_id="d1") == "queued"
    assert run_ready_tasks(stack.queue) == 1
    job = stack.job(KEY)
    assert (job.state, job.attempts, job.error) == ("done", 1, None)
    with stack.sessions() as session:
        delivery = get_delivery(session, "d1")
    assert delivery is not None and delivery.status == "done"
    assert stack.deliver(issue_payload(9), delivery_id="d1") == "duplicate"

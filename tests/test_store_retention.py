"""Payload retention: old payloads are dropped by the worker's periodic task, outcomes kept,
and a redelivery from GitHub brings a dropped payload back."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from app.store.assessments import assessments_for
from app.store.deliveries import delivery_body, get_delivery
from app.store.models import Delivery, DeliveryStatus, Job, JobState, utcnow
from app.store.payloads import PrunedPayload
from tests.service.deliveries import issue_payload
from tests.service.settings import service_settings
from tests.service.stack import Stack, build_stack, run_ready_tasks
from tests.service.standin_handler import FileRecordingHandler

REPO = "Codertocat/Hello-World"


def age(stack: Stack, delivery_id: str, days: float) -> None:
    with stack.sessions.begin() as session:
        session.execute(
            update(Delivery)
            .where(Delivery.delivery_id == delivery_id)
            .values(received_at=utcnow() - timedelta(days=days))
        )


def run_hourly_tasks(stack: Stack) -> list[str]:
    """What the worker's scheduler does at minute 17 of an hour."""
    due = stack.queue.huey.read_periodic(datetime(2026, 11, 24, 10, 17))
    for task in due:
        stack.queue.huey.execute(task)
    return [task.name for task in due]


def codec_of(stack: Stack, delivery_id: str) -> str | None:
    with stack.sessions() as session:
        delivery = get_delivery(session, delivery_id)
        assert delivery is not None
        return delivery.payload_codec


def test_old_payloads_are_pruned_hourly_and_outcomes_kept(tmp_path: Path) -> None:
    handler = FileRecordingHandler(tmp_path / "control")
    stack = build_stack(service_settings(tmp_path, payload_retention_days=30), handler)
    for number, delivery_id in ((1, "old"), (2, "recent")):
        assert stack.deliver(issue_payload(number), delivery_id=delivery_id) == "queued"
        assert run_ready_tasks(stack.queue) == 1
    assert stack.deliver(issue_payload(3), delivery_id="waiting") == "queued"  # not run yet
    age(stack, "old", 31)
    age(stack, "waiting", 31)

    assert "prune_payloads" in run_hourly_tasks(stack)

    assert codec_of(stack, "old") == "pruned"
    assert codec_of(stack, "recent") is None and codec_of(stack, "waiting") is None
    with stack.sessions() as session:
        old = get_delivery(session, "old")
        assert old is not None and old.payload == b"" and old.status == "done"
        with pytest.raises(PrunedPayload, match="retention"):
            delivery_body(old)
        assert [row.labels for row in assessments_for(session, REPO, 1)] == [["spice:clarity-1"]]
    assert stack.job(f"{REPO}#1").state == "done"
    # The pending job still has its payload and runs.
    assert run_ready_tasks(stack.queue) == 1
    assert handler.lines("effects") == ["old", "recent", "waiting"]


def test_a_redelivery_of_a_pruned_failed_delivery_runs_it_again(tmp_path: Path) -> None:
    handler = FileRecordingHandler(tmp_path / "control")
    stack = build_stack(service_settings(tmp_path), handler)
    assert stack.deliver(issue_payload(5), delivery_id="gone") == "queued"
    assert run_ready_tasks(stack.queue) == 1
    with stack.sessions.begin() as session:  # as a job that failed for good leaves it
        session.execute(update(Job).values(state=JobState.failed, error="ModelDown"))
        session.execute(update(Delivery).values(status=DeliveryStatus.failed))
    age(stack, "gone", 90)
    run_hourly_tasks(stack)
    assert codec_of(stack, "gone") == "pruned"

    # A maintainer presses "Redeliver": GitHub sends the same id and body again.
    assert stack.deliver(issue_payload(5), delivery_id="gone") == "queued"
    assert codec_of(stack, "gone") is None  # as the test stack stores them: verbatim
    assert run_ready_tasks(stack.queue) == 1
    assert handler.lines("effects") == ["gone", "gone"]
    assert stack.job(f"{REPO}#5").state == "done"


def test_a_redelivery_with_another_body_does_not_replace_a_pruned_payload(
    tmp_path: Path,
) -> None:
    stack = build_stack(service_settings(tmp_path), FileRecordingHandler(tmp_path / "control"))
    assert stack.deliver(issue_payload(6), delivery_id="same-id") == "queued"
    assert run_ready_tasks(stack.queue) == 1
    age(stack, "same-id", 40)
    run_hourly_tasks(stack)
    assert stack.deliver(issue_payload(7), delivery_id="same-id") == "duplicate"
    assert codec_of(stack, "same-id") == "pruned"


def test_validation_log_folders_go_after_the_retention(tmp_path: Path) -> None:
    import os

    from app.store.retention import prune_folders

    old, new = tmp_path / "old-1", tmp_path / "new-1"
    for folder in (old, new):
        folder.mkdir()
        (folder / "before.log.gz").write_bytes(b"x")
    os.utime(old, (1_000, 1_000))
    assert prune_folders(tmp_path, retention_days=30, now=1_000 + 31 * 86400) == 1
    assert not old.exists() and new.exists()
    assert prune_folders(tmp_path / "absent", 30) == 0

"""Group-committed intake: mixed batches and concurrent submissions keep their per-delivery answers."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import func, select

from app.intake.accept import accept_batch
from app.intake.batcher import IntakeBatcher
from app.intake.contract import Intake
from app.store.deliveries import NewDelivery
from app.store.jobs import claim_run, finish_run, recover_stale
from app.store.models import Delivery
from app.store.write_lock import ProcessWriteLock
from tests.service.settings import service_settings
from tests.service.stack import build_stack


def new(delivery_id: str, key: str) -> NewDelivery:
    return NewDelivery(
        delivery_id=delivery_id,
        event="issues",
        action="edited",
        repo="o/r",
        job_key=key,
        payload=b"{}",
    )


def test_mixed_batch(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    accept_batch(stack.sessions, [new("old", "o/r#3")], stack.queue.enqueue_many)
    with stack.sessions.begin() as session:
        run = claim_run(session, "o/r#3")
        assert run is not None
        finish_run(session, run)
    batch = [
        new("a", "o/r#1"),
        new("a", "o/r#1"),  # the same delivery twice in one batch
        new("b", "o/r#1"),  # a second delivery for a key created in this batch
        new("c", "o/r#2"),
        new("d", "o/r#3"),  # a key whose last run is done
        new("old", "o/r#3"),  # redelivery of a stored id
    ]
    results = accept_batch(stack.sessions, batch, stack.queue.enqueue_many)
    assert results == [
        Intake.queued,
        Intake.duplicate,
        Intake.coalesced,
        Intake.queued,
        Intake.queued,
        Intake.duplicate,
    ]
    assert stack.job("o/r#1").delivery_id == "b"
    assert stack.job("o/r#3").state == "pending"
    assert stack.queue.huey.pending_count() == 1 + 3


def test_concurrent_submissions_each_stored_once(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    batcher = IntakeBatcher(stack.sessions, stack.queue.enqueue_many)

    async def burst() -> list[Intake]:
        deliveries = [new(f"id{i % 150}", f"o/r#{i % 40}") for i in range(300)]
        return await asyncio.gather(*(batcher.submit(d) for d in deliveries))

    try:
        results = asyncio.run(burst())
    finally:
        batcher.close()
    assert results.count(Intake.duplicate) == 150
    assert results.count(Intake.queued) == 40
    with stack.sessions() as session:
        assert session.scalar(select(func.count()).select_from(Delivery)) == 150
    assert stack.queue.huey.pending_count() == 40


def test_batcher_waits_for_another_process_holding_the_write_lock(tmp_path: Path) -> None:
    stack = build_stack(service_settings(tmp_path))
    database = tmp_path / "spice.db"
    other_process = ProcessWriteLock(database)  # its own descriptor: flock excludes it
    batcher = IntakeBatcher(stack.sessions, stack.queue.enqueue_many, ProcessWriteLock(database))

    async def scenario() -> Intake:
        assert other_process.try_acquire()
        pending = asyncio.ensure_future(batcher.submit(new("locked", "o/r#8")))
        await asyncio.sleep(0.05)
        assert not pending.done()  # the loop kept running; the write waits for the lock
        other_process.release()
        return await asyncio.wait_for(pending, timeout=5)

    try:
        assert asyncio.run(scenario()) == Intake.queued
    finally:
        batcher.close()
        other_process.close()
    assert stack.job("o/r#8").delivery_id == "locked"


def test_queue_is_rung_after_the_store_lock_is_free_and_its_failure_loses_nothing(
    tmp_path: Path,
) -> None:
    stack = build_stack(service_settings(tmp_path))
    database = tmp_path / "spice.db"
    another_worker = ProcessWriteLock(database)
    rung: list[tuple[list[str], bool]] = []

    def enqueue_many(delivery_ids: list[str]) -> None:
        # Another worker's store write could start now: the queue is a database of its own.
        free = another_worker.try_acquire()
        if free:
            another_worker.release()
        rung.append((list(delivery_ids), free))
        raise RuntimeError("queue unavailable")

    batcher = IntakeBatcher(stack.sessions, enqueue_many, ProcessWriteLock(database))

    async def scenario() -> list[Intake]:
        keys = [("q0", "o/r#20"), ("q1", "o/r#21"), ("q2", "o/r#20")]
        return list(await asyncio.gather(*(batcher.submit(new(d, k)) for d, k in keys)))

    try:
        assert asyncio.run(scenario()) == [Intake.queued, Intake.queued, Intake.coalesced]
    finally:
        batcher.close()
        another_worker.close()
    assert rung == [(["q0", "q1"], True)]
    # Stored and pending although the queue refused: the recovery sweep enqueues them later.
    assert stack.job("o/r#20").state == "pending" and stack.job("o/r#21").state == "pending"
    with stack.sessions.begin() as session:
        # o/r#20 points at its latest delivery, q2, which coalesced into the pending run.
        assert sorted(recover_stale(session, lease_s=0)) == ["q1", "q2"]

"""Job rows: one per issue/PR key, so bursts coalesce and a crashed run is found again."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import (
    bindparam,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from app.store.deliveries import set_delivery_status
from app.store.installations import cancel_job, hold_on_job
from app.store.models import Delivery, DeliveryStatus, Job, JobState, utcnow


class ClaimedRun(BaseModel):
    key: str
    delivery_id: str
    generation: int
    attempt: int


_EXISTING_AMONG = select(Job.key).where(Job.key.in_(bindparam("keys", expanding=True)))
_INSERT = insert(Job)


def _new_job(key: str, delivery_id: str, now: datetime) -> dict[str, Any]:
    return {
        "key": key,
        "delivery_id": delivery_id,
        "state": JobState.pending.value,
        "generation": 1,
        "run_generation": 0,
        "attempts": 0,
        "created_at": now,
        "updated_at": now,
    }


def create_jobs(session: Session, first_deliveries: dict[str, str]) -> set[str]:
    """Insert a pending job per key (key -> delivery id) where none exists; returns new keys.

    As with deliveries: a lookup, then a plain insert that fails (and is retried by the
    caller) if a concurrent transaction created one of the keys in between.
    """
    if not first_deliveries:
        return set()
    conn = session.connection()
    existing = set(conn.scalars(_EXISTING_AMONG, {"keys": list(first_deliveries)}))
    now = utcnow()
    rows = [
        _new_job(key, delivery_id, now)
        for key, delivery_id in first_deliveries.items()
        if key not in existing
    ]
    if rows:
        conn.execute(_INSERT, rows)
    return {row["key"] for row in rows}


def _locked(session: Session, key: str) -> Job | None:
    return session.scalar(select(Job).where(Job.key == key).with_for_update())


def request_run(session: Session, key: str, delivery_id: str) -> bool:
    """Note a new delivery for `key`; True when the caller must enqueue a run.

    A pending run (not started yet) will read the latest delivery, and a running one
    re-runs when it finishes behind the newest generation: neither needs another task.
    """
    if create_jobs(session, {key: delivery_id}):
        return True
    job = _locked(session, key)
    assert job is not None  # the conflicting row exists and jobs are never deleted
    job.generation += 1
    job.delivery_id = delivery_id
    job.updated_at = utcnow()
    if job.state in (JobState.pending, JobState.running):
        return False
    job.state = JobState.pending
    job.attempts = 0
    job.error = None
    return True


def rerun_failed(session: Session, redelivered: dict[str, str]) -> set[str]:
    """Redeliveries (delivery id -> job key) of deliveries whose job failed for good: the
    ones to run again, as a maintainer pressing GitHub's "Redeliver" means."""
    if not redelivered:
        return set()
    failed = session.scalars(
        select(Delivery.delivery_id).where(
            Delivery.delivery_id.in_(list(redelivered)),
            Delivery.status == DeliveryStatus.failed,
        )
    ).all()
    again: set[str] = set()
    for delivery_id in failed:
        job = _locked(session, redelivered[delivery_id])
        if job is None or job.state != JobState.failed:
            continue  # a newer delivery is pending, running or already done it
        request_run(session, job.key, delivery_id)
        again.add(delivery_id)
    if again:
        session.execute(
            update(Delivery)
            .where(Delivery.delivery_id.in_(list(again)))
            .values(status=DeliveryStatus.queued)
        )
    return again


def claim_run(session: Session, key: str) -> ClaimedRun | None:
    """Move a pending job to running; None when there is nothing to do for this task."""
    job = _locked(session, key)
    if job is None or job.state != JobState.pending:
        return None
    held = hold_on_job(session, job)
    if held is not None:
        # Uninstalled or suspended while the task waited in the queue: said so, not run.
        cancel_job(session, job, *held)
        return None
    now = utcnow()
    job.state = JobState.running
    job.run_generation = job.generation
    job.attempts += 1
    job.started_at = now
    job.updated_at = now
    return ClaimedRun(
        key=key, delivery_id=job.delivery_id, generation=job.generation, attempt=job.attempts
    )


def finish_run(
    session: Session, run: ClaimedRun, error: str | None = None, final: bool = True
) -> bool:
    """Close a run, and its delivery with it; True when deliveries arrived meanwhile and it
    must run again now (their latest one is then the job's delivery)."""
    job = _locked(session, run.key)
    assert job is not None
    now = utcnow()
    job.updated_at = now
    job.error = error
    if error is None:
        set_delivery_status(session, run.delivery_id, DeliveryStatus.done)
    if job.generation != run.generation:
        job.state = JobState.pending
        if error is not None:  # the newer delivery's run covers this one
            set_delivery_status(session, run.delivery_id, DeliveryStatus.coalesced)
        return True
    held = hold_on_job(session, job) if error is not None else None
    if error is None:
        job.state = JobState.done
        job.finished_at = now
    elif held is not None:
        cancel_job(session, job, *held)  # GitHub's 404 of an uninstalled App is not the cause
    elif final:
        job.state = JobState.failed
        job.finished_at = now
        set_delivery_status(session, run.delivery_id, DeliveryStatus.failed)
    else:
        job.state = JobState.pending  # a queue retry claims it again after its delay
    return False


def release_run(session: Session, run: ClaimedRun) -> bool:
    """Hand a run this process cannot finish back to the queue (a worker told to stop):
    True when the job was still this run's, now pending again for another worker."""
    job = _locked(session, run.key)
    if job is None or job.state != JobState.running or job.run_generation != run.generation:
        return False
    job.state = JobState.pending
    job.attempts = max(job.attempts - 1, 0)  # not a failure: the attempt never ended
    job.updated_at = utcnow()
    return True


def get_job(session: Session, key: str) -> Job | None:
    return session.scalar(select(Job).where(Job.key == key))


def recover_stale(session: Session, lease_s: float) -> list[str]:
    """Pending jobs idle and running jobs silent past the lease: back to pending.

    A consumer killed mid-run leaves its job `running`; a web process that died between
    commit and enqueue leaves it `pending` with no task. Returns the delivery ids to enqueue;
    an extra task for a job that is still queued is harmless (its claim finds nothing).
    """
    cutoff = utcnow() - timedelta(seconds=lease_s)
    jobs = session.scalars(
        select(Job)
        .where(
            or_(
                (Job.state == JobState.running) & (Job.started_at < cutoff),
                (Job.state == JobState.pending) & (Job.updated_at < cutoff),
            )
        )
        .with_for_update()
    ).all()
    now = utcnow()
    for job in jobs:
        job.state = JobState.pending
        job.updated_at = now
    return [job.delivery_id for job in jobs]


def count_by_state(session: Session) -> dict[str, int]:
    rows = session.execute(select(Job.state, func.count()).group_by(Job.state)).all()
    return {state: count for state, count in rows}

"""Storing deliveries in group commits: each stored once, its job noted, one run enqueued.

Every delivery that arrived while the previous transaction ran shares the next one, so the
cost of a commit is paid once per batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.intake.contract import Intake, IntakeUnavailable
from app.store.deliveries import (
    NewDelivery,
    insert_unseen,
    record_deliveries,
    set_delivery_status,
)
from app.store.jobs import create_jobs, create_unseen_jobs, request_run, rerun_failed
from app.store.models import DeliveryStatus

log = logging.getLogger(__name__)
MAX_BATCH = 64
EnqueueMany = Callable[[list[str]], object]


class _SeenBefore(Exception):
    """A delivery or job of the batch was stored already: roll back, take the careful path."""


def store_batch(
    sessions: sessionmaker[Session], batch: Sequence[NewDelivery]
) -> tuple[list[Intake], list[str]]:
    """Persist deliveries and their jobs in one transaction: the intakes and the ids to enqueue.

    Under load nearly every batch is new deliveries of new issues and PRs: two statements
    store it. Anything else (a redelivery, a key with a job, a key twice) rolls that back
    and goes through `store_checked`, where a redelivery of a delivery whose job failed runs
    again and any other is a duplicate.
    """
    if len({new.job_key for new in batch}) == len(batch) and len(
        {new.delivery_id for new in batch}
    ) == len(batch):
        engine: Engine = sessions.kw["bind"]
        try:
            # A bare connection: an ORM session costs ~160 us per batch and none of it is used.
            with engine.begin() as conn:
                if not insert_unseen(conn, batch):
                    raise _SeenBefore
                if not create_unseen_jobs(conn, {n.job_key: n.delivery_id for n in batch}):
                    raise _SeenBefore
            return [Intake.queued] * len(batch), [new.delivery_id for new in batch]
        except _SeenBefore:
            pass
    return store_checked(sessions, batch)


def store_checked(
    sessions: sessionmaker[Session], batch: Sequence[NewDelivery]
) -> tuple[list[Intake], list[str]]:
    """`store_batch` for any batch: which deliveries were stored, which keys have jobs."""
    results: list[Intake] = []
    to_enqueue: list[str] = []
    with sessions.begin() as session:
        stored = record_deliveries(session, batch)
        fresh = [new for new in batch if new.delivery_id in stored]
        # The common case in one statement: the first delivery of a key with no job yet.
        firsts: dict[str, str] = {}
        for new in fresh:
            firsts.setdefault(new.job_key, new.delivery_id)
        created = create_jobs(session, firsts)
        again = rerun_failed(
            session, {n.delivery_id: n.job_key for n in batch if n.delivery_id not in stored}
        )
        for new in batch:
            if new.delivery_id in again:
                again.discard(new.delivery_id)  # once: a second copy in the batch is a duplicate
                results.append(Intake.queued)
                to_enqueue.append(new.delivery_id)
                continue
            if new.delivery_id not in stored:
                results.append(Intake.duplicate)
                continue
            stored.discard(new.delivery_id)  # a repeat of this id later in the batch is a duplicate
            if new.job_key in created and firsts[new.job_key] == new.delivery_id:
                queued = True
            else:
                queued = request_run(session, new.job_key, new.delivery_id)
            if queued:
                results.append(Intake.queued)
                to_enqueue.append(new.delivery_id)
            else:
                set_delivery_status(session, new.delivery_id, DeliveryStatus.coalesced)
                results.append(Intake.coalesced)
    return results, to_enqueue


def ring_queue(enqueue_many: EnqueueMany, delivery_ids: list[str]) -> None:
    """Enqueue stored deliveries' runs.

    The job row is the durable record: if an enqueue fails, the recovery sweep finds the
    pending job later, so the deliveries are still answered as accepted.
    """
    if not delivery_ids:
        return
    try:
        enqueue_many(delivery_ids)
    except Exception:
        log.exception("enqueue failed deliveries=%s", ",".join(delivery_ids))


def accept_batch(
    sessions: sessionmaker[Session], batch: Sequence[NewDelivery], enqueue_many: EnqueueMany
) -> list[Intake]:
    """Persist deliveries and their jobs in one transaction, then ring the queue."""
    results, to_enqueue = store_batch(sessions, batch)
    ring_queue(enqueue_many, to_enqueue)
    return results


def accept_delivery(
    sessions: sessionmaker[Session], new: NewDelivery, enqueue_many: EnqueueMany
) -> Intake:
    return accept_batch(sessions, [new], enqueue_many)[0]


def store_each(
    sessions: sessionmaker[Session], batch: Sequence[NewDelivery]
) -> tuple[list[Intake | IntakeUnavailable], list[str]]:
    """`store_batch` in chunks; a chunk that fails is retried one by one.

    One bad delivery must not fail the others that shared its transaction: each gets its own
    outcome, `IntakeUnavailable` for those that could not be stored.
    """
    outcomes: list[Intake | IntakeUnavailable] = []
    to_enqueue: list[str] = []
    for start in range(0, len(batch), MAX_BATCH):
        chunk = batch[start : start + MAX_BATCH]
        try:
            results, ids = store_batch(sessions, chunk)
        except Exception as exc:  # noqa: BLE001 - each delivery is retried, then handed back
            if len(chunk) == 1:
                # The type only: a database error's text quotes the statement's parameters.
                log.error("not stored delivery=%s: %s", chunk[0].delivery_id, type(exc).__name__)
                outcomes.append(IntakeUnavailable(f"store failed: {type(exc).__name__}"))
                continue
            for new in chunk:
                one, one_ids = store_each(sessions, [new])
                outcomes += one
                to_enqueue += one_ids
            continue
        outcomes += results
        to_enqueue += ids
    return outcomes, to_enqueue

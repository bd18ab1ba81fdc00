"""Accepting verified deliveries: store each once, note its job, enqueue at most one run.

Deliveries are written in group commits: under load, every delivery that arrived while the
previous transaction ran shares the next one, so the cost of a commit is paid once per batch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from enum import StrEnum

from sqlalchemy.orm import Session, sessionmaker

from app.store.deliveries import NewDelivery, record_deliveries, set_delivery_status
from app.store.jobs import create_jobs, request_run
from app.store.models import DeliveryStatus
from app.store.write_lock import ProcessWriteLock

log = logging.getLogger(__name__)
MAX_BATCH = 64
LOCK_RETRY_S = 0.0005
EnqueueMany = Callable[[list[str]], object]


class Intake(StrEnum):
    queued = "queued"
    coalesced = "coalesced"
    duplicate = "duplicate"


def store_batch(
    sessions: sessionmaker[Session], batch: Sequence[NewDelivery]
) -> tuple[list[Intake], list[str]]:
    """Persist deliveries and their jobs in one transaction: the intakes and the ids to enqueue."""
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
        for new in batch:
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


class IntakeBatcher:
    """Group commit on the event loop: `await batcher.submit(new)` -> its Intake.

    Deliveries submitted during one loop iteration share one transaction, written by the loop
    thread itself when the iteration's other callbacks are done. That blocks the loop for
    the commit (a fraction of a millisecond per delivery), on purpose: a writer thread has to
    win the GIL back from the loop after every SQLite call and measured half as fast.
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        enqueue_many: EnqueueMany,
        write_lock: ProcessWriteLock | None = None,
    ) -> None:
        self._sessions = sessions
        self._enqueue_many = enqueue_many
        self._write_lock = write_lock
        self._pending: list[tuple[NewDelivery, asyncio.Future[Intake]]] = []
        self._flush_scheduled = False

    async def submit(self, new: NewDelivery) -> Intake:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Intake] = loop.create_future()
        self._pending.append((new, future))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
        return await future

    def close(self) -> None:
        if self._write_lock is not None:
            self._write_lock.close()

    def _flush(self) -> None:
        if self._write_lock is not None and not self._write_lock.try_acquire():
            # Another worker process is writing: serve requests meanwhile, the batch grows.
            asyncio.get_running_loop().call_later(LOCK_RETRY_S, self._flush)
            return
        pending, self._pending = self._pending, []
        self._flush_scheduled = False
        settled: list[tuple[asyncio.Future[Intake], Intake | Exception]] = []
        to_enqueue: list[str] = []
        try:
            for start in range(0, len(pending), MAX_BATCH):
                self._store(pending[start : start + MAX_BATCH], settled, to_enqueue)
        finally:
            if self._write_lock is not None:
                self._write_lock.release()
        # The queue is a store of its own (another SQLite file, or Redis across the network):
        # the other workers' store writes need not wait for it.
        ring_queue(self._enqueue_many, to_enqueue)
        for future, outcome in settled:
            if future.done():  # a request whose client went away was cancelled
                continue
            if isinstance(outcome, Exception):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    def _store(
        self,
        batch: list[tuple[NewDelivery, asyncio.Future[Intake]]],
        settled: list[tuple[asyncio.Future[Intake], Intake | Exception]],
        to_enqueue: list[str],
    ) -> None:
        try:
            results, ids = store_batch(self._sessions, [new for new, _ in batch])
        except Exception as exc:  # noqa: BLE001 - retried one by one, then handed to its request
            if len(batch) > 1:
                # One bad delivery must not fail the others that shared its transaction.
                for item in batch:
                    self._store([item], settled, to_enqueue)
            else:
                settled.append((batch[0][1], exc))
            return
        to_enqueue += ids
        settled += [(future, result) for (_, future), result in zip(batch, results, strict=True)]

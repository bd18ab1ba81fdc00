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


def accept_batch(
    sessions: sessionmaker[Session], batch: Sequence[NewDelivery], enqueue_many: EnqueueMany
) -> list[Intake]:
    """Persist deliveries and their jobs in one transaction, then ring the queue.

    The job row is the durable record: if an enqueue fails, the recovery sweep finds the
    pending job later, so the delivery is still answered as accepted.
    """
    results: list[Intake] = []
    to_enqueue: list[NewDelivery] = []
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
                to_enqueue.append(new)
            else:
                set_delivery_status(session, new.delivery_id, DeliveryStatus.coalesced)
                results.append(Intake.coalesced)
    if to_enqueue:
        ids = [new.delivery_id for new in to_enqueue]
        try:
            enqueue_many(ids)
        except Exception:
            log.exception("enqueue failed deliveries=%s", ",".join(ids))
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
        try:
            for start in range(0, len(pending), MAX_BATCH):
                self._write(pending[start : start + MAX_BATCH])
        finally:
            if self._write_lock is not None:
                self._write_lock.release()

    def _write(self, batch: list[tuple[NewDelivery, asyncio.Future[Intake]]]) -> None:
        try:
            results = accept_batch(self._sessions, [new for new, _ in batch], self._enqueue_many)
        except Exception as exc:  # noqa: BLE001 - retried one by one, then handed to its request
            if len(batch) > 1:
                # One bad delivery must not fail the others that shared its transaction.
                for item in batch:
                    self._write([item])
            elif not batch[0][1].done():
                batch[0][1].set_exception(exc)
            return
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():  # a request whose client went away was cancelled
                future.set_result(result)

"""Accepting verified deliveries: store each once, note its job, enqueue at most one run.

Deliveries are written by one thread per process in group commits: under load, every
delivery that arrived while the previous transaction ran shares the next one, so the cost
of a commit is paid once per batch, and threads of one process never queue on SQLite's lock.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import nullcontext
from enum import StrEnum

from sqlalchemy.orm import Session, sessionmaker

from app.store.deliveries import NewDelivery, record_deliveries, set_delivery_status
from app.store.jobs import create_jobs, request_run
from app.store.models import DeliveryStatus
from app.store.write_lock import ProcessWriteLock

log = logging.getLogger(__name__)
MAX_BATCH = 64
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


class IntakeWriter:
    """The one writer thread of a process: `await writer.submit(new)` -> its Intake."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        enqueue_many: EnqueueMany,
        write_lock: ProcessWriteLock | None = None,
    ) -> None:
        self._sessions = sessions
        self._enqueue_many = enqueue_many
        self._write_lock = write_lock
        self._inbox: queue.SimpleQueue[tuple[NewDelivery, Future[Intake]] | None] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    async def submit(self, new: NewDelivery) -> Intake:
        self._ensure_started()
        future: Future[Intake] = Future()
        self._inbox.put((new, future))
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        with self._lock:
            if self._thread is not None:
                self._inbox.put(None)
                self._thread.join(timeout=10)
                self._thread = None
            if self._write_lock is not None:
                self._write_lock.close()

    def _ensure_started(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="intake-writer", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            first = self._inbox.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < MAX_BATCH:
                try:
                    item = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self._write(batch)
                    return
                batch.append(item)
            self._write(batch)

    def _write(self, batch: list[tuple[NewDelivery, Future[Intake]]]) -> None:
        try:
            with self._write_lock.held() if self._write_lock else nullcontext():
                results = accept_batch(
                    self._sessions, [new for new, _ in batch], self._enqueue_many
                )
        except Exception as exc:  # noqa: BLE001 - retried one by one, then handed to its request
            if len(batch) == 1:
                batch[0][1].set_exception(exc)
                return
            # One bad delivery must not fail the others that shared its transaction.
            for item in batch:
                self._write([item])
            return
        for (_, future), result in zip(batch, results, strict=True):
            future.set_result(result)

"""Group commit inside a web process: for PostgreSQL, and for SQLite without a writer."""

from __future__ import annotations

import asyncio

from sqlalchemy.orm import Session, sessionmaker

from app.intake.accept import EnqueueMany, ring_queue, store_each
from app.intake.contract import Intake
from app.store.deliveries import NewDelivery
from app.store.write_lock import ProcessWriteLock

LOCK_RETRY_S = 0.0005


class IntakeBatcher:
    """`await batcher.submit(new)` -> its Intake; one transaction per event-loop iteration.

    Deliveries submitted during one loop iteration share one transaction, written by the loop
    thread itself when the iteration's other callbacks are done. That blocks the loop for
    the commit (a fraction of a millisecond per delivery), on purpose: a writer thread has to
    win the GIL back from the loop after every SQLite call and measured half as fast.

    Several processes sharing one SQLite file take turns through `write_lock`, and each pays
    for re-reading what the others wrote: `spice serve` gives SQLite a writer process of
    its own instead (app.intake.writer).
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

    async def ready(self) -> bool:
        return True  # it writes itself: the database check says the rest

    async def aclose(self) -> None:
        self.close()

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
            outcomes, to_enqueue = store_each(self._sessions, [new for new, _ in pending])
        finally:
            if self._write_lock is not None:
                self._write_lock.release()
        # The queue is a store of its own (another SQLite file, or Redis across the network):
        # the other workers' store writes need not wait for it.
        ring_queue(self._enqueue_many, to_enqueue)
        for (_, future), outcome in zip(pending, outcomes, strict=True):
            if future.done():  # a request whose client went away was cancelled
                continue
            if isinstance(outcome, Exception):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

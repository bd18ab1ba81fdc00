"""The host's one SQLite writer: web workers hand it deliveries over a Unix socket.

Two web processes taking turns on one SQLite file each re-read what the other wrote after
every turn, and wait on each other while the machine idles (benchmarks/webhook_ingest.py:
a third of the CPU idle at two workers). A single writer keeps its page cache, and batches
what all the workers received in the meantime into one group commit.

Run by `spice serve` (see app.intake.supervisor): `python -m app.intake.writer`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from app.intake.accept import ring_queue, store_each
from app.intake.contract import Intake, IntakeUnavailable
from app.intake.wire import (
    DELIVERY_FIELDS,
    FramedConnection,
    Outcome,
    Submission,
    frame,
    submission_decoder,
)
from app.store.deliveries import NewDelivery

log = logging.getLogger("app.intake.writer")  # also when run as __main__

Store = Callable[[Sequence[NewDelivery]], tuple[list[Intake | IntakeUnavailable], list[str]]]
"""Persist a batch: each delivery's outcome, and the delivery ids whose runs to enqueue."""
Enqueue = Callable[[list[str]], object]
Observe = Callable[[int, float], None]
"""Told each commit's batch size and seconds (store and enqueue)."""


class _Connection(FramedConnection[Submission]):
    """One web worker's connection: submissions in, outcomes back as they are settled."""

    def __init__(self, writer: IntakeWriter) -> None:
        super().__init__(submission_decoder)
        self._writer = writer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._writer.connections.add(self)

    def received(self, messages: list[Submission]) -> None:
        for submission in messages:
            self._writer.add(self, submission)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self._writer.connections.discard(self)


class IntakeWriter:
    """Collects submissions from every connection; one group commit per loop iteration.

    The commit runs on the loop thread and blocks it, on purpose: what arrives meanwhile
    waits in the sockets and makes the next batch bigger.
    """

    def __init__(self, store: Store, enqueue: Enqueue, observe: Observe | None = None) -> None:
        self.connections: set[_Connection] = set()
        self._observe = observe
        self._store = store
        self._enqueue = enqueue
        self._pending: list[tuple[_Connection, Submission]] = []
        self._flush_scheduled = False

    def connection(self) -> _Connection:
        return _Connection(self)

    def add(self, connection: _Connection, submission: Submission) -> None:
        self._pending.append((connection, submission))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        self._flush_scheduled = False
        if not pending:
            return
        # Constructed, not validated again: msgspec checked every field's type on decoding.
        batch = [
            NewDelivery.model_construct(**{name: getattr(s, name) for name in DELIVERY_FIELDS})
            for _, s in pending
        ]
        started = time.perf_counter()
        outcomes: Sequence[Intake | IntakeUnavailable]
        try:
            outcomes, to_enqueue = self._store(batch)
        except Exception as exc:
            # The store answers a bad row by itself; this is the store being unusable
            # (its lock file, say). Waiting workers answer 503 now, not after their timeout.
            log.exception("intake batch of %d not stored", len(batch))
            outcomes, to_enqueue = [IntakeUnavailable(f"not stored: {exc}")] * len(batch), []
        ring_queue(self._enqueue, to_enqueue)
        if self._observe is not None:
            self._observe(len(batch), time.perf_counter() - started)
        answers: dict[_Connection, list[Outcome]] = {}
        for (connection, submission), outcome in zip(pending, outcomes, strict=True):
            if isinstance(outcome, IntakeUnavailable):
                answer = Outcome(seq=submission.seq, intake=None, error=str(outcome))
            else:
                answer = Outcome(seq=submission.seq, intake=outcome.value)
            answers.setdefault(connection, []).append(answer)
        for connection, replies in answers.items():
            connection.send([frame(reply) for reply in replies])


async def serve_socket(writer: IntakeWriter, path: Path, stop: asyncio.Event) -> None:
    """Listen on `path` (owner-only) until `stop`, then settle what was received."""
    if path.exists() and stat.S_ISSOCK(path.stat().st_mode):
        path.unlink()  # left by a writer that was killed; a live one is the supervisor's
    loop = asyncio.get_running_loop()
    old_umask = os.umask(0o177)  # the socket is created 0600: only our user may submit
    try:
        server = await loop.create_unix_server(writer.connection, str(path))
    finally:
        os.umask(old_umask)
    ours = path.stat().st_ino
    log.info("intake writer listening on %s", path)
    try:
        await stop.wait()
    finally:
        server.close()
        writer.flush()
        # Whatever arrives from now on is not stored: the web workers answer it 503.
        for connection in list(writer.connections):
            if connection.transport is not None:
                connection.transport.close()
        await server.wait_closed()
        # Only our own socket: a writer that took the path over since (a second `spice
        # serve` on this data dir) keeps serving its workers.
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_ino == ours:
                path.unlink()


async def _watch_parent(parent: int, stop: asyncio.Event, interval_s: float = 1.0) -> None:
    """Stop when the process that started us is gone (a SIGKILLed supervisor leaves no one)."""
    while not stop.is_set():
        if os.getppid() != parent:
            log.warning("intake writer: parent %d gone, stopping", parent)
            stop.set()
            return
        await asyncio.sleep(interval_s)


def main(argv: list[str] | None = None) -> None:
    import argparse

    import uvloop
    from prometheus_client import Histogram  # after the environment chose its value store

    from app.cli.common import setup_logging
    from app.queue.tasks import build_queue
    from app.settings import Settings
    from app.store.checkpoint import WalCheckpointer
    from app.store.engine import database_url, make_engine, session_factory, sqlite_path
    from app.store.write_lock import ProcessWriteLock

    parser = argparse.ArgumentParser(description="The host's SQLite intake writer.")
    parser.add_argument(
        "--parent", type=int, help="stop when this process is gone (the supervisor's pid)"
    )
    args = parser.parse_args(argv)
    settings = Settings()
    setup_logging(settings.log_level, settings.log_format)
    socket_path = settings.intake_socket
    if socket_path is None:
        raise SystemExit("SPICE_INTAKE_SOCKET is not set: no socket to serve")
    url = database_url(settings)
    database = sqlite_path(url)
    engine = make_engine(url, background_checkpoints=database is not None)
    sessions = session_factory(engine)
    queue = build_queue(settings, sessions)
    checkpointer = WalCheckpointer(database) if database is not None else None
    write_lock = ProcessWriteLock(database) if database is not None else None

    batch_sizes = Histogram(
        "spice_intake_batch_size",
        "Deliveries per intake writer commit.",
        buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
    )
    commit_seconds = Histogram(
        "spice_intake_commit_seconds",
        "Seconds per intake writer commit, store and enqueue.",
        buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1),
    )

    def observe(size: int, seconds: float) -> None:
        batch_sizes.observe(size)
        commit_seconds.observe(seconds)

    def store(batch: Sequence[NewDelivery]) -> tuple[list[Intake | IntakeUnavailable], list[str]]:
        if write_lock is None:
            return store_each(sessions, batch)
        with write_lock.held():  # shared with the checkpointer's RESTART
            return store_each(sessions, batch)

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        # Passed in, not read here: a parent that died while we started up would be init.
        watcher = asyncio.create_task(_watch_parent(args.parent or os.getppid(), stop))
        await serve_socket(IntakeWriter(store, queue.enqueue_many, observe), socket_path, stop)
        watcher.cancel()

    if checkpointer is not None:
        checkpointer.start()
    try:
        uvloop.run(run())
    finally:
        if checkpointer is not None:
            checkpointer.stop()
        if write_lock is not None:
            write_lock.close()
        engine.dispose()


if __name__ == "__main__":
    main()

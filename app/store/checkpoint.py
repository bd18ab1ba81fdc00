"""A background thread that checkpoints a SQLite WAL, so request-path commits never fsync."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

from app.store.write_lock import ProcessWriteLock

log = logging.getLogger(__name__)

WAL_RESTART_BYTES = 32 * 1024 * 1024
"""Past this much log a RESTART checkpoint makes the next writer reuse the file from its start.

Under a continuous writer a PASSIVE checkpoint never catches the last frame, so SQLite never
restarts the log: the WAL grew without bound (700 MB after 30,000 deliveries of 20 KB), and
every commit paid the kernel for fresh page-cache pages instead of reusing warm ones.
"""
RESTART_BUSY_MS = 200
"""How long a RESTART may wait for readers (and writers outside the write lock)."""


class WalCheckpointer:
    """PASSIVE checkpoints every `interval_s` on a connection of its own, RESTART past a size.

    PASSIVE never waits for readers or writers (and never calls the busy handler); pages it
    cannot copy yet are copied by a later round. Once the log holds more than `restart_bytes`
    of frames, a RESTART follows the PASSIVE round, holding the writers' process write lock: a
    writer that polls SQLite's lock would win it back after every commit and starve the
    RESTART, while the webhook intake simply defers its batch (and keeps serving) until the
    lock is free. Only the frames written since the PASSIVE round remain to copy, so the hold
    is short. If readers keep it busy past `RESTART_BUSY_MS` a later round tries again.

    The size is the frames in use, not the file's: RESTART leaves the file at its high-water
    mark. And the log rewinds only when the next writer comes, so until then its frames stay
    as the last RESTART left them: going by either would restart every round while idle.
    """

    def __init__(
        self,
        database: Path,
        interval_s: float = 0.5,
        restart_bytes: int = WAL_RESTART_BYTES,
    ) -> None:
        self._database = database
        # A lock of its own: flock excludes another open file, not another thread of the same.
        self._write_lock = ProcessWriteLock(database)
        self._interval_s = interval_s
        self._restart_bytes = restart_bytes
        self._restarted_at: int | None = None
        """Log frames when a RESTART last succeeded: until a writer comes, nothing to redo."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="wal-checkpointer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def checkpoint(self, conn: sqlite3.Connection) -> None:
        _, log_frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        frame_bytes = conn.execute("PRAGMA page_size").fetchone()[0] + 24  # + frame header
        if log_frames * frame_bytes > self._restart_bytes and log_frames != self._restarted_at:
            conn.execute(f"PRAGMA busy_timeout={RESTART_BUSY_MS}")
            try:
                with self._write_lock.held():
                    busy, frames, _ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
            finally:
                conn.execute("PRAGMA busy_timeout=0")
            if busy:
                log.info(
                    "WAL restart deferred: readers or a writer held it past %d ms", RESTART_BUSY_MS
                )
            else:
                self._restarted_at = frames

    def _run(self) -> None:
        conn = sqlite3.connect(self._database, timeout=0, check_same_thread=False)
        try:
            while not self._stop.wait(self._interval_s):
                try:
                    self.checkpoint(conn)
                except sqlite3.OperationalError as exc:
                    log.warning("WAL checkpoint skipped: %s", exc)
            self.checkpoint(conn)
        finally:
            conn.close()
            self._write_lock.close()

"""A background thread that checkpoints a SQLite WAL, so request-path commits never fsync."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)


class WalCheckpointer:
    """PASSIVE checkpoints every `interval_s` on a connection of its own.

    PASSIVE never waits for readers or writers (and never calls the busy handler); pages it
    cannot copy yet are copied by a later round.
    """

    def __init__(self, database: Path, interval_s: float = 0.5) -> None:
        self._database = database
        self._interval_s = interval_s
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
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

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

"""One writer at a time across the processes of a host sharing a SQLite file (flock)."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ProcessWriteLock:
    """A blocking `flock` on `<database>.write.lock`.

    SQLite's own busy handler retries by sleeping (1, 2, 5, 10 ms and up), so two web workers
    that collide both lose milliseconds; a waiter on `flock` is woken by the kernel the moment
    the holder releases. Threads of one process need their own serialisation (one writer
    thread per process here).
    """

    def __init__(self, database: Path) -> None:
        self._path = Path(f"{database}.write.lock")
        self._fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        return self._fd

    @contextmanager
    def held(self) -> Iterator[None]:
        fcntl.flock(self._file(), fcntl.LOCK_EX)  # blocks without holding the GIL
        try:
            yield
        finally:
            self.release()

    def try_acquire(self) -> bool:
        """Take the lock if it is free; an event loop must not block on another process."""
        try:
            fcntl.flock(self._file(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def release(self) -> None:
        fcntl.flock(self._file(), fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

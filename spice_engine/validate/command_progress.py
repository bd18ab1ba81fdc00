"""What shows a running command is alive: its output, read within a cap, and any other sign
(the index proxy's bytes), on one monotonic clock the sandbox's idle limit reads."""

from __future__ import annotations

import os
import threading
import time
from typing import IO


class Progress:
    """When a command last moved. Marked from any thread (a float's store is atomic)."""

    def __init__(self, quiet: str = "no output") -> None:
        self.quiet = quiet
        """What had not moved, in the reason a command stopped for it."""
        self.last = time.monotonic()

    def mark(self) -> None:
        self.last = time.monotonic()

    def quiet_s(self) -> float:
        return time.monotonic() - self.last


class CappedOutput:
    """Reads a pipe to its end, keeping the head and the tail within `cap` bytes; each chunk
    read marks `progress`."""

    def __init__(self, pipe: IO[bytes], cap: int, progress: Progress) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self._half = max(cap // 2, 1)
        self._progress = progress
        self._thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self._thread.start()

    def _read(self, pipe: IO[bytes]) -> None:
        # Whatever has arrived, as it arrives: the buffered `read(n)` waits for n bytes, and a
        # command printing a line a minute would look silent.
        while chunk := os.read(pipe.fileno(), 65536):
            self._progress.mark()
            room = self._half - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            if len(self.tail) > self._half:
                cut = len(self.tail) - self._half
                del self.tail[:cut]
                self.dropped += cut

    def text(self, timeout_s: float = 5.0) -> str:
        self._thread.join(timeout_s)
        gap = f"\n[... {self.dropped} bytes of output cut ...]\n".encode() if self.dropped else b""
        return bytes(self.head + gap + self.tail).decode("utf-8", errors="replace")

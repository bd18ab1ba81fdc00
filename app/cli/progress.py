"""What a long batch says while it runs: each instance's phase as it starts, with the time
spent, and, when nobody watches a terminal (CI, nohup, a pipe), a heartbeat line every 30 s
naming what is still running, so a log never goes quiet for minutes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType

HEARTBEAT_S = 30.0


class PhaseReporter:
    """`phase(instance_id, what)` for the engine's batches; `done(instance_id)` when one ends.
    Lines go to `say` (stderr); with `heartbeat`, a line every `every_s` for what runs."""

    def __init__(
        self,
        command: str,
        say: Callable[[str], None],
        heartbeat: bool,
        every_s: float = HEARTBEAT_S,
    ) -> None:
        self.command, self.say, self.every_s = command, say, every_s
        self._running: dict[str, tuple[str, float, float]] = {}
        """instance -> (phase, phase started, instance started)"""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._beating, daemon=True, name="heartbeat")
        self._heartbeat = heartbeat

    def __enter__(self) -> PhaseReporter:
        if self._heartbeat:
            self._beat.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()

    def phase(self, instance_id: str, what: str) -> None:
        now = time.monotonic()
        with self._lock:
            _, _, began = self._running.get(instance_id, ("", now, now))
            self._running[instance_id] = (what, now, began)
        self.say(f"{self.command}: {instance_id} {what} (at {now - began:.0f} s)")

    def done(self, instance_id: str) -> None:
        with self._lock:
            self._running.pop(instance_id, None)

    def _beating(self) -> None:
        while not self._stop.wait(self.every_s):
            now = time.monotonic()
            with self._lock:
                running = sorted(self._running.items())
            for iid, (what, since, began) in running:
                self.say(
                    f"{self.command}: {iid} still in {what} for {now - since:.0f} s "
                    f"({now - began:.0f} s in all)"
                )

"""Keeps the intake writer process running beside gunicorn's workers (started by its master)."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)

READY_TIMEOUT_S = 30.0
RESTART_DELAY_S = (0.1, 0.5, 2.0, 5.0)
"""Back-off between restarts of a writer that keeps dying (then every 5 s)."""
HEALTHY_AFTER_S = 10.0
"""A writer that ran this long before exiting is restarted without back-off."""
STOP_TIMEOUT_S = 20.0


def socket_accepts(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
        return True


class WriterSupervisor:
    """Starts `python -m app.intake.writer`, waits until it listens, restarts it if it dies.

    Web workers meanwhile answer 503 (GitHub redelivers), never lose an accepted delivery:
    a 202 is only sent for a delivery the writer reported stored.
    """

    def __init__(
        self, socket_path: Path, argv: list[str] | None = None, env: dict[str, str] | None = None
    ) -> None:
        self._path = socket_path
        self._argv = argv or [
            sys.executable,
            "-m",
            "app.intake.writer",
            "--parent",
            str(os.getpid()),
        ]
        self._env = env
        self._process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        self._spawn()
        self._thread = threading.Thread(target=self._watch, name="intake-writer", daemon=True)
        self._thread.start()

    def _spawn(self) -> None:
        process = subprocess.Popen(self._argv, env=self._env)
        self._process = process
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not socket_accepts(self._path):
            if process.poll() is not None:
                raise RuntimeError(f"intake writer exited with {process.returncode} at start")
            if time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"intake writer not listening after {READY_TIMEOUT_S:g} s")
            time.sleep(0.05)
        log.info("intake writer pid=%d listening on %s", process.pid, self._path)

    def _watch(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            assert self._process is not None
            started = time.monotonic()
            code = self._process.wait()
            if self._stopping.is_set():
                return
            failures = 0 if time.monotonic() - started > HEALTHY_AFTER_S else failures
            delay = RESTART_DELAY_S[min(failures, len(RESTART_DELAY_S) - 1)]
            # The code may read 0 whatever happened: gunicorn's master reaps every child it sees.
            log.error("intake writer exited (code %s); restarting in %g s", code, delay)
            if self._stopping.wait(delay):
                return
            try:
                self._spawn()
            except (OSError, RuntimeError) as exc:
                if self._stopping.is_set():
                    return  # stopped while the new writer was starting
                failures += 1
                log.error("intake writer restart failed: %s", exc)
                continue
            failures += 1
            self.restarts += 1

    def stop(self) -> None:
        """SIGTERM: the writer settles what it has received, then exits."""
        self._stopping.set()
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._thread is not None:
            self._thread.join(timeout=5)

"""gunicorn settings for `spice serve`: uvicorn workers; bind address and workers from the CLI."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
from typing import Any

from app.logging_setup import configure_logging, format_handlers

wsgi_app = "app.web.app:app_from_environment()"
worker_class = "uvicorn.workers.UvicornWorker"
workers = 2
# GitHub waits 10 s for an answer; a request stuck longer than this is a bug worth a restart.
timeout = 30
# Draining must end inside `docker stop`'s 10 s before its SIGKILL (and systemd's 90 s).
graceful_timeout = 8
keepalive = 5
accesslog = None  # our own log line per delivery says more, and never includes headers
errorlog = "-"
# The runtime control socket is one fixed path per user: several servers on a host collide.
control_socket_disable = True
PR_SET_PDEATHSIG = 1
SERVER_LOGGERS = ("gunicorn.error", "uvicorn", "uvicorn.error")


def on_starting(_server: Any) -> None:
    _configure_logs()


def post_fork(server: Any, _worker: Any) -> None:
    """A worker dies with its master: a master killed outright (OOM killer, SIGKILL) must
    not leave workers holding the port, so a restart can bind it again."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != server.pid:  # the master died before the line above
        os._exit(1)


def child_exit(_server: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges from the shared metrics directory."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def post_worker_init(_worker: Any) -> None:
    _configure_logs()


def _configure_logs() -> None:
    """Ours and gunicorn's and uvicorn's lines alike: SPICE_LOG_LEVEL, SPICE_LOG_FORMAT,
    redacted."""
    kind = os.environ.get("SPICE_LOG_FORMAT", "text")
    configure_logging(os.environ.get("SPICE_LOG_LEVEL", "INFO"), kind)
    format_handlers(SERVER_LOGGERS, kind)
    logging.getLogger("uvicorn.access").disabled = True

"""gunicorn settings for `spice serve`: uvicorn workers; bind address and workers from the CLI."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

from app.log_format import log_formatter

wsgi_app = "app.web.app:app_from_environment()"
worker_class = "uvicorn.workers.UvicornWorker"
workers = 2
# GitHub waits 10 s for an answer; a request stuck longer than this is a bug worth a restart.
timeout = 30
graceful_timeout = 20
keepalive = 5
accesslog = None  # our own log line per delivery says more, and never includes headers
errorlog = "-"
# The runtime control socket is one fixed path per user: several servers on a host collide.
control_socket_disable = True


def on_starting(server: Any) -> None:
    """Start the host's intake writer before the workers that submit to it."""
    _log_app_to_stderr()
    socket_path = os.environ.get("SPICE_INTAKE_SOCKET")
    if socket_path:
        from pathlib import Path

        from app.intake.supervisor import WriterSupervisor

        server.intake_writer = WriterSupervisor(Path(socket_path))
        server.intake_writer.start()


def on_exit(server: Any) -> None:
    """After the workers are gone: the writer settles what it received, then stops."""
    supervisor = getattr(server, "intake_writer", None)
    if supervisor is not None:
        supervisor.stop()


def child_exit(_server: Any, worker: Any) -> None:
    """Drop a dead worker's live gauges from the shared metrics directory."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def post_worker_init(_worker: Any) -> None:
    _log_app_to_stderr()


def _log_app_to_stderr() -> None:
    """Our `app.*` loggers to stderr at SPICE_LOG_LEVEL in SPICE_LOG_FORMAT (gunicorn
    configures only its own)."""
    logger = logging.getLogger("app")
    if logger.handlers:  # a worker forked from a master that did this already
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(log_formatter(os.environ.get("SPICE_LOG_FORMAT", "text")))
    logger.addHandler(handler)
    logger.setLevel(os.environ.get("SPICE_LOG_LEVEL", "INFO").upper())
    logger.propagate = False

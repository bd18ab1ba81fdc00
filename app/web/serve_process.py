"""The `spice serve` process: migrate the store once, then become gunicorn."""

from __future__ import annotations

import os
import sys

from app.logging_setup import configure_logging
from app.metrics import use_multiprocess_dir
from app.redaction import secret_values
from app.settings import Settings
from app.store.opening import open_store
from app.store.private_files import make_private


def run_serve(host: str, port: int, workers: int) -> None:
    """Raises ValueError, before anything starts, when the webhook secret is missing."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format, secret_values(settings))
    settings.webhook_secret_bytes()
    make_private(settings.data_dir)  # inherited by gunicorn and its workers through exec
    # Migrate here, once, rather than racing in every worker.
    open_store(settings).engine.dispose()
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        use_multiprocess_dir(settings.data_dir / "metrics")
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        "python:app.web.gunicorn_conf",
        "--bind",
        f"{host}:{port}",
        "--workers",
        str(workers),
    ]
    sys.stdout.flush()
    sys.stderr.flush()
    # exec: gunicorn becomes this process, so signals from a supervisor or Docker reach it.
    os.execv(sys.executable, argv)

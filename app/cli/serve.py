"""`spice serve`: migrate the store once, then run the webhook app under gunicorn."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from app.cli.common import fail, setup_logging
from app.metrics import use_multiprocess_dir
from app.settings import Settings
from app.store.engine import database_url, make_engine
from app.store.migrate import upgrade_to_head
from app.store.private_files import make_private


def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="gunicorn worker processes (1-64).")
    ] = 2,
) -> None:
    """Serve POST /webhook, GET /healthz and GET /metrics (gunicorn with uvicorn workers)."""
    settings = Settings()
    setup_logging(settings.log_level, settings.log_format)
    try:
        settings.webhook_secret_bytes()
    except ValueError as exc:
        fail(str(exc))
    make_private(settings.data_dir)  # inherited by gunicorn and its workers through exec
    # Migrate here, once, rather than racing in every worker.
    url = database_url(settings)
    engine = make_engine(url)
    upgrade_to_head(engine)
    engine.dispose()
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

"""`spice serve`: migrate the store once, then run the webhook app under gunicorn."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from app.cli.common import fail, setup_logging
from app.metrics import use_multiprocess_dir
from app.settings import Settings
from app.store.engine import database_url, make_engine, sqlite_path
from app.store.migrate import upgrade_to_head

MAX_UNIX_SOCKET_PATH = 107  # sun_path is 108 bytes on Linux, with its terminating NUL


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
    # Migrate here, once, rather than racing in every worker.
    url = database_url(settings)
    engine = make_engine(url)
    upgrade_to_head(engine)
    engine.dispose()
    if sqlite_path(url) is not None and settings.intake_socket is None:
        # One writer process for the host's SQLite file (app.intake.writer).
        socket_path = (settings.data_dir / "intake.sock").resolve()
        if len(str(socket_path).encode()) > MAX_UNIX_SOCKET_PATH:
            fail(
                f"{socket_path} is too long for a Unix socket: "
                "set SPICE_INTAKE_SOCKET to a shorter path"
            )
        os.environ["SPICE_INTAKE_SOCKET"] = str(socket_path)
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

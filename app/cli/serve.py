"""`spice serve`: the webhook service under gunicorn."""

from __future__ import annotations

from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="gunicorn worker processes (1-64).")
    ] = 2,
) -> None:
    """Serve POST /webhook, GET /healthz and GET /metrics (gunicorn with uvicorn workers)."""
    from app.web.serve_process import run_serve

    run_serve(host, port, workers)

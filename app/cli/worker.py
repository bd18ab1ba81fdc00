"""`spice worker`: run the job consumer (huey) against the configured store and queue."""

from __future__ import annotations

from typing import Annotated

import typer


def worker(
    threads: Annotated[int, typer.Option(min=1, help="Jobs run concurrently.")] = 2,
    handler: Annotated[
        str | None,
        typer.Option(help="module:factory building the delivery handler (tests).", hidden=True),
    ] = None,
) -> None:
    """Run queued jobs; jobs a crash left behind are picked up at start and every minute."""
    from app.worker_process import run_worker

    run_worker(threads, handler)

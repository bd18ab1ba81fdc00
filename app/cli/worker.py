"""`spice worker`: run the job consumer (huey) against the configured store and queue."""

from __future__ import annotations

import logging
import os
from typing import Annotated

import typer

from app.cli.common import setup_logging
from app.harvest.fanout import register_harvest_task, settings_contexts
from app.metrics import build_metrics, use_multiprocess_dir, watch_github
from app.queue.consumer import run_consumer
from app.queue.handler import DEFAULT_HANDLER, load_handler
from app.queue.runner import JobRunner
from app.queue.tasks import build_queue
from app.redaction import secret_values
from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory
from app.store.migrate import upgrade_to_head

log = logging.getLogger(__name__)


def worker(
    threads: Annotated[int, typer.Option(min=1, help="Jobs run concurrently.")] = 2,
    handler: Annotated[
        str, typer.Option(help="module:factory building the delivery handler.", hidden=True)
    ] = DEFAULT_HANDLER,
) -> None:
    """Run queued jobs; jobs a crash left behind are picked up at start and every minute."""
    settings = Settings()
    setup_logging(settings.log_level, settings.log_format)
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        use_multiprocess_dir(settings.data_dir / "metrics")
    engine = make_engine(database_url(settings))
    upgrade_to_head(engine)
    sessions = session_factory(engine)
    metrics = build_metrics()
    watch_github(metrics)  # for the process's life: GitHub failures and waits in /metrics
    runner = JobRunner(sessions, load_handler(handler, settings), metrics, secret_values(settings))
    queue = build_queue(settings, sessions, runner)
    register_harvest_task(queue.huey, settings_contexts(settings))  # `spice harvest --enqueue`
    recovered = queue.recover()
    log.info("worker up queue=%s recovered=%d", type(queue.huey).__name__, len(recovered))
    run_consumer(queue, runner, threads, settings.worker_stop_grace_s)

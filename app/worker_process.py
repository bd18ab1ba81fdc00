"""The `spice worker` process: store, queue and the GitHub handlers wired together (this is
where the queue meets the handlers), then the consumer."""

from __future__ import annotations

import logging
import os

from app.handlers.delivery_handler import github_handler
from app.harvest.fanout import register_harvest_task, settings_contexts
from app.harvest.validation_task import register_validation_task
from app.healthcheck import heartbeat_path
from app.logging_setup import configure_logging
from app.metrics import build_metrics, use_multiprocess_dir, watch_github
from app.queue.consumer import run_consumer
from app.queue.factory import make_huey
from app.queue.handler import load_handler
from app.queue.runner import JobRunner, deferral_budget
from app.queue.tasks import build_queue
from app.redaction import secret_values
from app.settings import Settings
from app.store.opening import open_store
from app.store.private_files import make_private
from spice_engine.langs.toolchains import reachable_languages, unreachable_line

log = logging.getLogger(__name__)


def run_worker(threads: int, handler: str | None = None) -> None:
    """Consume jobs until stopped; `handler` (`module:factory`) replaces the GitHub
    handlers, for tests."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format, secret_values(settings))
    make_private(settings.data_dir)
    # Said once, where an operator looks first: a job in a language this worker's user cannot
    # run ends `missing_toolchain` or `missing_python` (the image's user cannot enter root's
    # rustup or pyenv; the image itself holds Python only).
    if unreachable := unreachable_line(reachable_languages()):
        log.warning("worker: %s", unreachable)
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        use_multiprocess_dir(settings.data_dir / "metrics")
    engine, sessions = open_store(settings)
    metrics = build_metrics()
    watch_github(metrics)  # for the process's life: GitHub failures and waits in /metrics
    # The queue's huey first: the validation task the handlers enqueue is registered on it
    # before the handler, the runner and the queue's own tasks are built around them.
    huey = make_huey(settings)
    validate_later = register_validation_task(huey, settings, engine)
    chosen = (
        load_handler(handler, settings)
        if handler
        else github_handler(settings, engine, validate_later)
    )
    runner = JobRunner(
        sessions, chosen, metrics, secret_values(settings), deferral_budget(settings)
    )
    queue = build_queue(settings, sessions, runner, huey)
    # `spice harvest --enqueue`: each harvested instance is then validated by a worker too.
    register_harvest_task(huey, settings_contexts(settings, validate_later, engine))
    recovered = queue.recover()
    log.info("worker up queue=%s recovered=%d", type(queue.huey).__name__, len(recovered))
    heartbeat = (sessions, heartbeat_path(settings.data_dir))
    run_consumer(queue, runner, threads, settings.worker_stop_grace_s, heartbeat)

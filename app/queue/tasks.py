"""The huey tasks, registered on a queue built at start-up (no huey instance at import)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from huey import Huey, crontab
from huey.api import Task
from huey.exceptions import RetryTask
from sqlalchemy.orm import Session, sessionmaker

from app.queue.errors import JobDeferred
from app.queue.factory import make_huey
from app.settings import Settings
from app.store.jobs import recover_stale
from app.store.retention import VALIDATION_LOGS, prune_folders, prune_payloads

if TYPE_CHECKING:  # the web process enqueues only: it never loads the runner
    from app.queue.runner import JobRunner

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobQueue:
    huey: Huey
    enqueue: Callable[[str], object]
    """Enqueue `process_delivery(delivery_id)`."""
    recover: Callable[[], list[str]]
    """Re-enqueue jobs a crash or a lost enqueue left behind; returns their delivery ids."""


def build_queue(
    settings: Settings,
    sessions: sessionmaker[Session],
    runner: JobRunner | None = None,
    huey: Huey | None = None,
) -> JobQueue:
    """The queue with its tasks; web processes pass no runner (they only enqueue). `huey`:
    one the process has registered other tasks on already."""
    huey = huey if huey is not None else make_huey(settings)

    @huey.task(
        retries=settings.job_retries,
        retry_delay=settings.job_retry_delay_s,
        retry_backoff=2,
        context=True,
        name="process_delivery",
    )
    def process_delivery(delivery_id: str, task: Task) -> None:
        if runner is None:
            raise RuntimeError("this process only enqueues jobs; run them with `spice worker`")
        try:
            runner.run(delivery_id, final=task.retries == 0)
        except JobDeferred as exc:
            log.warning("job delivery=%s deferred %.0fs: %s", delivery_id, exc.delay_s, exc)
            raise RetryTask(str(exc), delay=exc.delay_s) from exc

    def recover() -> list[str]:
        with sessions.begin() as session:
            delivery_ids = recover_stale(session, settings.job_lease_s)
        for delivery_id in delivery_ids:
            log.warning("re-enqueued stale job delivery=%s", delivery_id)
            process_delivery(delivery_id)
        return delivery_ids

    @huey.periodic_task(crontab(minute="*"), name="recover_stale_jobs")
    def recover_stale_jobs() -> None:
        recover()

    @huey.periodic_task(crontab(minute="17"), name="prune_payloads")
    def prune_old_payloads() -> None:
        with sessions.begin() as session:
            pruned = prune_payloads(session, settings.payload_retention_days)
        # Validation logs (a folder per instance) are kept as long.
        logs = prune_folders(settings.data_dir / VALIDATION_LOGS, settings.payload_retention_days)
        if pruned or logs:
            log.info(
                "pruned %d payload(s) and %d validation log folder(s) older than %s days",
                pruned,
                logs,
                settings.payload_retention_days,
            )

    return JobQueue(huey=huey, enqueue=process_delivery, recover=recover)

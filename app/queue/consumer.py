"""Running the huey consumer so that a stop request (SIGTERM, `docker stop`) loses no job."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.healthcheck import HEARTBEAT_EVERY_S
from app.queue.runner import JobRunner
from app.queue.tasks import JobQueue

log = logging.getLogger(__name__)


def run_consumer(
    queue: JobQueue,
    runner: JobRunner,
    threads: int,
    stop_grace_s: float,
    heartbeat: tuple[sessionmaker[Session], Path] | None = None,
) -> None:
    """Consume until SIGTERM or SIGINT, then give running jobs `stop_grace_s` to end and
    hand the rest back: pending again, enqueued for the next worker at once (not after the
    job lease runs out). With `heartbeat`, a file is touched while the store answers
    (the container health check reads it)."""
    consumer = queue.huey.create_consumer(
        workers=threads,
        worker_type="thread",
        periodic=True,
        graceful_signal="TERM",  # what Docker and systemd send
        shutdown_timeout=stop_grace_s,
    )
    if heartbeat is not None:
        threading.Thread(target=_beat, args=heartbeat, daemon=True, name="heartbeat").start()
    consumer.run()
    released = runner.release_active()
    for delivery_id in released:
        queue.enqueue(delivery_id)
    if released:
        log.warning("stopping: handed back %d running job(s): %s", len(released), released)
    log.info("worker stopped")
    logging.shutdown()
    # Worker threads of a handed-back job are still inside it: end them with the process
    # before they write anything the next worker will write again.
    os._exit(0)


def _beat(sessions: sessionmaker[Session], path: Path) -> None:
    while True:
        try:
            with sessions() as session:
                session.execute(text("SELECT 1"))
            path.touch()
        except (SQLAlchemyError, OSError) as exc:
            log.warning("heartbeat skipped: store unreachable (%s)", type(exc).__name__)
        time.sleep(HEARTBEAT_EVERY_S)

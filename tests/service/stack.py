"""An in-process service stack for queue tests: store, queue and intake sharing settings."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.metrics import ServiceMetrics
from app.queue.runner import JobRunner, deferral_budget
from app.queue.tasks import JobQueue, build_queue
from app.redaction import secret_values
from app.routing import route_payload
from app.settings import Settings
from app.store.deliveries import NewDelivery
from app.store.engine import database_url, make_engine, session_factory
from app.store.intake import Intake, accept
from app.store.jobs import get_job
from app.store.migrate import upgrade_to_head
from app.store.models import Job


@dataclass
class Stack:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    queue: JobQueue

    def deliver(
        self, payload: dict[str, Any], event: str = "issues", delivery_id: str = ""
    ) -> Intake:
        """What POST /webhook does after the signature check."""
        route = route_payload(event, payload)
        assert route is not None
        new = NewDelivery(
            delivery_id=delivery_id or str(uuid.uuid4()),
            event=event,
            action=route.action,
            repo=route.repo,
            job_key=route.job_key,
            payload=json.dumps(payload).encode(),
            kind=route.kind,
            number=route.number,
            installation=route.installation,
            repos=route.repos,
        )
        return accept(self.sessions, new, self.queue.enqueue)

    def job(self, key: str) -> Job:
        with self.sessions() as session:
            job = get_job(session, key)
        assert job is not None
        return job


def build_stack(
    settings: Settings, runner_handler: Any = None, metrics: ServiceMetrics | None = None
) -> Stack:
    engine = make_engine(database_url(settings))
    upgrade_to_head(engine)
    sessions = session_factory(engine)
    runner = (
        JobRunner(
            sessions,
            runner_handler,
            metrics,
            secret_values(settings),
            deferral_budget(settings),
        )
        if runner_handler is not None
        else None
    )
    return Stack(settings, engine, sessions, build_queue(settings, sessions, runner))


def run_ready_tasks(queue: JobQueue, limit: int = 50) -> int:
    """Execute queued tasks in this process, as a consumer would; returns how many ran."""
    ran = 0
    while ran < limit:
        task = queue.huey.dequeue()
        if task is None:
            return ran
        queue.huey.execute(task)
        ran += 1
    return ran


def promote_scheduled(queue: JobQueue) -> int:
    """Move every scheduled task (retries waiting out their delay) to the queue now."""
    far_future = datetime.now(UTC).replace(tzinfo=None) + timedelta(days=1)
    tasks = queue.huey.read_schedule(far_future)
    for task in tasks:
        task.eta = None  # as if its delay had passed: a consumer runs only tasks that are due
        queue.huey.enqueue(task)
    return len(tasks)

"""`create_app(settings)`: the FastAPI service, its store, queue and metrics built here."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.intake.batcher import IntakeBatcher
from app.intake.client import IntakeClient
from app.metrics import build_metrics
from app.queue.tasks import JobQueue, build_queue
from app.settings import Settings
from app.store.checkpoint import WalCheckpointer
from app.store.engine import database_url, make_engine, session_factory, sqlite_path
from app.store.migrate import upgrade_to_head
from app.store.write_lock import ProcessWriteLock
from app.web import health, metrics_endpoint, webhook
from app.web.services import WebServices
from app.web.webhook import WebhookFirst

log = logging.getLogger(__name__)


def create_app(
    settings: Settings, *, migrate: bool = True, queue: JobQueue | None = None
) -> FastAPI:
    """The app; refuses to start without a webhook secret (outside test mode).

    `migrate=False` when the caller already ran the migrations (`spice serve` does, once,
    before its workers start).
    """
    secret = settings.webhook_secret_bytes()
    url = database_url(settings)
    database_file = sqlite_path(url)
    engine = make_engine(url, background_checkpoints=database_file is not None)
    # With an intake writer, it is the one process writing deliveries, and it checkpoints.
    writer = settings.intake_socket
    checkpointer = (
        WalCheckpointer(database_file) if database_file is not None and writer is None else None
    )
    if migrate:
        upgrade_to_head(engine)
    sessions = session_factory(engine)
    queue = queue or build_queue(settings, sessions)
    services = WebServices(
        settings=settings,
        secret=secret,
        engine=engine,
        sessions=sessions,
        queue=queue,
        metrics=build_metrics(),
        intake=IntakeClient(writer)
        if writer is not None
        else IntakeBatcher(
            sessions,
            queue.enqueue_many,
            ProcessWriteLock(database_file) if database_file is not None else None,
        ),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        log.info(
            "service up database=%s queue=%s",
            engine.dialect.name,
            type(services.queue.huey).__name__,
        )
        if checkpointer is not None:
            checkpointer.start()
        yield
        await services.intake.aclose()
        if checkpointer is not None:
            checkpointer.stop()
        engine.dispose()

    app = FastAPI(title="SPICE Triage", lifespan=lifespan)
    app.state.services = services
    for module in (webhook, health, metrics_endpoint):
        app.include_router(module.router)
    return app


def app_from_environment() -> WebhookFirst:
    """Factory for gunicorn workers: settings from the environment, schema already migrated."""
    return WebhookFirst(create_app(Settings(), migrate=False))

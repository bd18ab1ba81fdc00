"""`create_app(settings)`: the FastAPI service, its store, queue and metrics built here."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.metrics import build_metrics, watch_github
from app.queue.tasks import JobQueue, build_queue
from app.settings import Settings
from app.store.opening import open_store
from app.web import health, metrics_endpoint, webhook
from app.web.dashboard import routes as dashboard
from app.web.services import WebServices

log = logging.getLogger(__name__)


def create_app(
    settings: Settings, *, migrate: bool = True, queue: JobQueue | None = None
) -> FastAPI:
    """The app; refuses to start without a webhook secret (outside test mode).

    `migrate=False` when the caller already ran the migrations (`spice serve` does, once,
    before its workers start).
    """
    secret = settings.webhook_secret_bytes()
    engine, sessions = open_store(settings, migrate=migrate)
    services = WebServices(
        settings=settings,
        secret=secret,
        engine=engine,
        sessions=sessions,
        queue=queue or build_queue(settings, sessions),
        metrics=build_metrics(),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Jobs run in this process too when no separate worker does (and in tests); workers
        # count their own, summed by `/metrics` through the multiprocess directory.
        unwatch = watch_github(services.metrics)
        log.info(
            "service up database=%s queue=%s",
            engine.dialect.name,
            type(services.queue.huey).__name__,
        )
        yield
        unwatch()
        engine.dispose()

    app = FastAPI(title="SPICE Triage", lifespan=lifespan)
    app.state.services = services
    for module in (webhook, health, metrics_endpoint, dashboard):
        app.include_router(module.router)
    return app


def app_from_environment() -> FastAPI:
    """Factory for gunicorn workers: settings from the environment, schema already migrated."""
    return create_app(Settings(), migrate=False)

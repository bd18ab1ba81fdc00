"""What the routers share, built once per app by `create_app` and found on `app.state`."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.metrics import ServiceMetrics
from app.queue.tasks import JobQueue
from app.settings import Settings


@dataclass(frozen=True)
class WebServices:
    settings: Settings
    secret: bytes | None
    engine: Engine
    sessions: sessionmaker[Session]
    queue: JobQueue
    metrics: ServiceMetrics


async def get_services(request: Request) -> WebServices:
    """FastAPI dependency: the services of the app serving this request.

    `async` on purpose: FastAPI would run a plain function in its thread pool.
    """
    services: WebServices = request.app.state.services
    return services

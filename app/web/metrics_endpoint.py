"""`GET /metrics`: Prometheus text format, job states read from the store."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app.metrics import scrape_registry
from app.store.jobs import count_by_state
from app.web.services import WebServices, get_services

router = APIRouter()


def _scrape(services: WebServices) -> bytes:
    def job_counts() -> dict[str, int] | None:
        try:
            with services.sessions() as session:
                return count_by_state(session)
        except SQLAlchemyError:
            # The other metrics still matter most when the database is down.
            services.metrics.errors.labels("database").inc()
            return None

    return generate_latest(scrape_registry(services.metrics, job_counts))


@router.get("/metrics")
async def metrics(services: Annotated[WebServices, Depends(get_services)]) -> Response:
    body = await run_in_threadpool(_scrape, services)
    return Response(body, media_type=CONTENT_TYPE_LATEST)

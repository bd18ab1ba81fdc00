"""`GET /healthz`: the process answers, and so do the database and the intake writer."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app.web.services import WebServices, get_services

log = logging.getLogger(__name__)
router = APIRouter()


def _ping_database(services: WebServices) -> None:
    with services.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


@router.get("/healthz")
async def healthz(services: Annotated[WebServices, Depends(get_services)]) -> JSONResponse:
    report = {"status": "ok", "database": "ok", "intake": "ok"}
    try:
        await run_in_threadpool(_ping_database, services)
    except SQLAlchemyError as exc:
        services.metrics.errors.labels("database").inc()
        log.error("healthz: database unreachable: %s", type(exc).__name__)
        report |= {"status": "error", "database": "unreachable"}
    if not await services.intake.ready():
        log.error("healthz: intake writer unreachable")
        report |= {"status": "error", "intake": "unreachable"}
    return JSONResponse(report, status_code=200 if report["status"] == "ok" else 503)

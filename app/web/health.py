"""`GET /healthz`: the process answers, the database does, and the data disk has room; which
languages it can run."""

from __future__ import annotations

import logging
import shutil
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app.metrics import github_summary, scrape_registry
from app.sandboxing import live_validation_problem
from app.web.services import WebServices, get_services
from spice_engine.langs.toolchains import reachable_languages

log = logging.getLogger(__name__)
router = APIRouter()


def _ping_database(services: WebServices) -> None:
    with services.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def free_disk_mb(services: WebServices) -> float:
    """Free space where deliveries, queue and clones are written."""
    data_dir = services.settings.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    return shutil.disk_usage(data_dir).free / 1e6


@router.get("/healthz")
async def healthz(services: Annotated[WebServices, Depends(get_services)]) -> JSONResponse:
    report: dict[str, str | float] = {"status": "ok", "database": "ok", "disk": "ok"}
    try:
        await run_in_threadpool(_ping_database, services)
    except SQLAlchemyError as exc:
        services.metrics.errors.labels("database").inc()
        log.error("healthz: database unreachable: %s", type(exc).__name__)
        report |= {"status": "error", "database": "unreachable"}
    # Rate limits and GitHub failures are reported, not failed on: GitHub's state, not ours.
    github = github_summary(scrape_registry(services.metrics, lambda: None))
    free = await run_in_threadpool(free_disk_mb, services)
    report["disk_free_mb"] = round(free, 1)
    if free < services.settings.min_free_disk_mb:
        # A full disk fails every write: deliveries would be answered 503 one by one.
        log.error("healthz: %.0f MB free in the data directory", free)
        report |= {"status": "error", "disk": "low"}
    # Validation off is reported, not failed on: the App labels issues and PRs without it.
    off = await run_in_threadpool(live_validation_problem, services.settings)
    report["validation"] = f"off: {off}" if off else "on"
    # Reported, not failed on: the App labels and validates the languages it can run. Probed
    # once per process (about a second, the first time); the reasons name no host path.
    reaches = await run_in_threadpool(reachable_languages)
    languages = {r.language: "ok" if r.available else f"unavailable: {r.reason}" for r in reaches}
    body: dict[str, object] = {**report, "github": github, "languages": languages}
    return JSONResponse(body, status_code=200 if report["status"] == "ok" else 503)

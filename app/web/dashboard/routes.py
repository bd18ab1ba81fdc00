"""The dashboard's routes under `/dashboard`: sign-in (app.web.dashboard.sign_in), the index of
repositories the viewer may see, one page per repository, and its dataset export.

A repository the viewer may not see answers 404, exactly as one that does not exist: its name
is not confirmed to anyone without access.

The pages' own modules (jinja2, the harvest export, the engine's result types) are imported
by the handlers that use them: every web worker loads this router, and most never serve a
page (a worker that only takes webhooks stays ~35 MB smaller).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response, StreamingResponse

from app.redaction import secret_values
from app.web.dashboard import queries, sign_in
from app.web.dashboard.access import Viewer
from app.web.dashboard.responses import HERE, html, secure
from app.web.dashboard.sign_in import visitor_of
from app.web.services import WebServices, get_services

router = APIRouter(prefix="/dashboard", include_in_schema=False)
router.include_router(sign_in.router)
Services = Annotated[WebServices, Depends(get_services)]


@router.get("/static/dashboard.css")
def stylesheet() -> Response:
    css = (HERE / "static" / "dashboard.css").read_text(encoding="utf-8")
    return secure(Response(css, media_type="text/css"))


@router.get("")
def index(request: Request, services: Services) -> Response:
    visitor = visitor_of(request, services)
    if visitor is None:
        return secure(RedirectResponse("/dashboard/login", status_code=303))
    from app.web.dashboard.pages import index_page

    with services.sessions() as session:
        page = index_page(session, visitor.viewer)
    return html("index.html.j2", sign_out_token=visitor.sign_out_token, **dict(page))


def _visible_repo(services: WebServices, viewer: Viewer, owner: str, name: str) -> str | None:
    """The stored name of `owner/name` when the viewer may see it (any letter case)."""
    wanted = f"{owner}/{name}".lower()
    with services.sessions() as session:
        stored = next((r for r in queries.known_repos(session) if r.lower() == wanted), None)
    return stored if stored is not None and viewer.can_see(stored) else None


def _not_here() -> Response:
    return secure(PlainTextResponse("No such repository on this dashboard.", status_code=404))


@router.get("/repos/{owner}/{name}")
def repository(
    request: Request, services: Services, owner: str, name: str, page: int = 1
) -> Response:
    visitor = visitor_of(request, services)
    if visitor is None:
        return secure(RedirectResponse("/dashboard/login", status_code=303))
    repo = _visible_repo(services, visitor.viewer, owner, name)
    if repo is None:
        return _not_here()
    from app.web.dashboard.pages import repo_page

    to_redact = secret_values(services.settings)
    with services.sessions() as session:
        data = repo_page(session, services.settings, visitor.viewer, repo, page, to_redact)
    return html("repo.html.j2", sign_out_token=visitor.sign_out_token, **dict(data))


@router.get("/repos/{owner}/{name}/export.jsonl")
def export(
    request: Request,
    services: Services,
    owner: str,
    name: str,
    include_unvalidated: bool = False,
) -> Response:
    visitor = visitor_of(request, services)
    if visitor is None:
        return secure(
            PlainTextResponse(
                "Sign in, or send Authorization: Bearer <operator token>.", status_code=401
            )
        )
    repo = _visible_repo(services, visitor.viewer, owner, name)
    if repo is None:
        return _not_here()
    from app.harvest.export import ExportFilter, select_records
    from app.harvest.store import HarvestStore

    rows = HarvestStore(services.sessions).instances(repo)
    records = select_records(rows, ExportFilter(include_unvalidated=include_unvalidated))

    def lines() -> Iterator[str]:
        for record in records:
            yield json.dumps(record, ensure_ascii=False) + "\n"

    filename = repo.replace("/", "__") + ".jsonl"
    response = StreamingResponse(lines(), media_type="application/x-ndjson")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return secure(response)

"""The dashboard's routes under `/dashboard`: sign-in (operator token or GitHub), the index of
repositories the viewer may see, one page per repository, and its dataset export.

A repository the viewer may not see answers 404, exactly as one that does not exist: its name
is not confirmed to anyone without access.

The pages' own modules (jinja2, the harvest export, the engine's result types) are imported
by the handlers that use them: every web worker loads this router, and most never serve a
page (a worker that only takes webhooks stays ~35 MB smaller).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)

from app.redaction import secret_values
from app.web.dashboard import queries
from app.web.dashboard.access import (
    OPERATOR,
    SESSION_COOKIE,
    STATE_COOKIE,
    STATE_MAX_AGE_S,
    Signer,
    Viewer,
    github_sign_in_ready,
    operator_token_ok,
    sign_in_methods,
)
from app.web.services import WebServices, get_services

if TYPE_CHECKING:
    from jinja2 import Environment

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
MAX_REPOS_CHECKED = 300
"""Repositories whose write access is read at a GitHub sign-in (one API call each)."""
router = APIRouter(prefix="/dashboard", include_in_schema=False)
Services = Annotated[WebServices, Depends(get_services)]


@lru_cache(maxsize=1)
def _templates() -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    # Every value is escaped: issue titles, rationales and logins are someone else's text.
    return Environment(
        loader=FileSystemLoader(str(HERE / "templates")), autoescape=True, undefined=StrictUndefined
    )


def _secure(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response


def _html(template: str, status: int = 200, **values: Any) -> Response:
    values.setdefault("viewer", None)
    body = _templates().get_template(template).render(**values)
    return _secure(HTMLResponse(body, status_code=status))


def _signer(services: WebServices) -> Signer:
    return Signer(services.settings)


def viewer_of(request: Request, services: WebServices) -> Viewer | None:
    """The signed-in viewer, or the operator presenting the token as a bearer (scripts)."""
    scheme, _, offered = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and operator_token_ok(services.settings, offered.strip()):
        return OPERATOR
    return _signer(services).viewer(request.cookies.get(SESSION_COOKIE))


def _signed_in(request: Request, services: WebServices, viewer: Viewer) -> Response:
    response = RedirectResponse("/dashboard", status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        _signer(services).viewer_cookie(viewer),
        max_age=int(services.settings.dashboard_session_s),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/dashboard",
    )
    return _secure(response)


def _login_page(services: WebServices, error: str = "", status: int = 200) -> Response:
    methods = sign_in_methods(services.settings) if _signer(services).enabled else []
    return _html("login.html.j2", status, methods=methods, error=error)


@router.get("/static/dashboard.css")
def stylesheet() -> Response:
    css = (HERE / "static" / "dashboard.css").read_text(encoding="utf-8")
    return _secure(Response(css, media_type="text/css"))


@router.get("/login")
def login_form(services: Services) -> Response:
    return _login_page(services)


@router.post("/login")
def login_with_token(
    request: Request, services: Services, token: Annotated[str, Form()] = ""
) -> Response:
    if not _signer(services).enabled or not operator_token_ok(services.settings, token):
        log.warning("dashboard: operator sign-in refused")
        return _login_page(services, "That token is not the operator token.", 401)
    return _signed_in(request, services, OPERATOR)


@router.post("/logout")
def logout() -> Response:
    response = RedirectResponse("/dashboard/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/dashboard")
    return _secure(response)


@router.get("/login/github")
def login_with_github(request: Request, services: Services) -> Response:
    if not github_sign_in_ready(services.settings) or not _signer(services).enabled:
        return _login_page(services, "Signing in with GitHub is not configured.", 404)
    from app.web.dashboard.github_sign_in import GitHubSignIn

    state = secrets.token_urlsafe(24)
    sign_in = GitHubSignIn(services.settings)
    url = sign_in.authorize_url(state, str(request.url_for("github_callback")))
    sign_in.close()
    response = RedirectResponse(url, status_code=303)
    response.set_cookie(
        STATE_COOKIE,
        _signer(services).state_cookie(state),
        max_age=STATE_MAX_AGE_S,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/dashboard",
    )
    return _secure(response)


@router.get("/oauth/callback", name="github_callback")
def github_callback(
    request: Request, services: Services, code: str = "", state: str = ""
) -> Response:
    if not github_sign_in_ready(services.settings):
        return _login_page(services, "Signing in with GitHub is not configured.", 404)
    if not code or not _signer(services).state_matches(request.cookies.get(STATE_COOKIE), state):
        return _login_page(services, "That sign-in link expired or was not ours: try again.", 400)
    from app.web.dashboard.github_sign_in import GitHubSignIn, SignInError

    sign_in = GitHubSignIn(services.settings)
    try:
        token = sign_in.exchange(code, str(request.url_for("github_callback")))
        login = sign_in.login(token)
        with services.sessions() as session:
            known = queries.known_repos(session)[:MAX_REPOS_CHECKED]
        repos = sign_in.writable(token, known)
    except SignInError as exc:
        log.warning("dashboard: GitHub sign-in failed: %s", exc)
        return _login_page(services, str(exc), 502)
    finally:
        sign_in.close()
    log.info("dashboard: %s signed in with GitHub (%d repositories)", login, len(repos))
    response = _signed_in(request, services, Viewer(login=login, via="github", repos=repos))
    response.delete_cookie(STATE_COOKIE, path="/dashboard")
    return response


@router.get("")
def index(request: Request, services: Services) -> Response:
    viewer = viewer_of(request, services)
    if viewer is None:
        return _secure(RedirectResponse("/dashboard/login", status_code=303))
    from app.web.dashboard.pages import index_page

    with services.sessions() as session:
        page = index_page(session, viewer)
    return _html("index.html.j2", **dict(page))


def _visible_repo(services: WebServices, viewer: Viewer, owner: str, name: str) -> str | None:
    """The stored name of `owner/name` when the viewer may see it (any letter case)."""
    wanted = f"{owner}/{name}".lower()
    with services.sessions() as session:
        stored = next((r for r in queries.known_repos(session) if r.lower() == wanted), None)
    return stored if stored is not None and viewer.can_see(stored) else None


def _not_here() -> Response:
    return _secure(PlainTextResponse("No such repository on this dashboard.", status_code=404))


@router.get("/repos/{owner}/{name}")
def repository(
    request: Request, services: Services, owner: str, name: str, page: int = 1
) -> Response:
    viewer = viewer_of(request, services)
    if viewer is None:
        return _secure(RedirectResponse("/dashboard/login", status_code=303))
    repo = _visible_repo(services, viewer, owner, name)
    if repo is None:
        return _not_here()
    from app.web.dashboard.pages import repo_page

    with services.sessions() as session:
        data = repo_page(
            session, services.settings, viewer, repo, page, secret_values(services.settings)
        )
    return _html("repo.html.j2", **dict(data))


@router.get("/repos/{owner}/{name}/export.jsonl")
def export(
    request: Request,
    services: Services,
    owner: str,
    name: str,
    include_unvalidated: bool = False,
) -> Response:
    viewer = viewer_of(request, services)
    if viewer is None:
        return _secure(
            PlainTextResponse(
                "Sign in, or send Authorization: Bearer <operator token>.", status_code=401
            )
        )
    repo = _visible_repo(services, viewer, owner, name)
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
    return _secure(response)

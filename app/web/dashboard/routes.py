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
from app.store.dashboard_sessions import end_session, session_live, start_session
from app.web.dashboard import queries
from app.web.dashboard.access import (
    OPERATOR,
    SESSION_COOKIE,
    STATE_COOKIE,
    STATE_MAX_AGE_S,
    SignedIn,
    Signer,
    Viewer,
    Visitor,
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
    values.setdefault("sign_out_token", "")
    body = _templates().get_template(template).render(**values)
    return _secure(HTMLResponse(body, status_code=status))


def _signer(services: WebServices) -> Signer:
    return Signer(services.settings)


def _live_sign_in(request: Request, services: WebServices, signer: Signer) -> SignedIn | None:
    """The request cookie's sign-in, if its session has not been ended on the server."""
    signed = signer.signed_in(request.cookies.get(SESSION_COOKIE))
    if signed is None:
        return None
    with services.sessions() as session:
        return signed if session_live(session, signed.session_id) else None


def visitor_of(request: Request, services: WebServices) -> Visitor | None:
    """The signed-in viewer, or the operator presenting the token as a bearer (scripts)."""
    scheme, _, offered = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and operator_token_ok(services.settings, offered.strip()):
        return Visitor(OPERATOR, sign_out_token="")
    signer = _signer(services)
    signed = _live_sign_in(request, services, signer)
    if signed is None:
        return None
    return Visitor(signed.viewer, signer.sign_out_token(signed.session_id))


def _signed_in(request: Request, services: WebServices, viewer: Viewer) -> Response:
    lifetime_s = services.settings.dashboard_session_s
    with services.sessions.begin() as session:
        session_id = start_session(session, viewer.login, lifetime_s)
    response = RedirectResponse("/dashboard", status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        _signer(services).sign_in_cookie(SignedIn(session_id=session_id, viewer=viewer)),
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
def logout(
    request: Request, services: Services, sign_out_token: Annotated[str, Form()] = ""
) -> Response:
    """Ends the session on the server (every copy of the cookie is worthless from then on),
    then clears the cookie. POST only, and with the page's token: another site, a link or an
    image cannot sign anyone out."""
    cookie = request.cookies.get(SESSION_COOKIE)
    signer = _signer(services)
    signed = signer.signed_in(cookie)
    if signed is not None:
        if not signer.sign_out_token_ok(signed.session_id, sign_out_token):
            log.warning("dashboard: sign-out without its token refused")
            return _secure(PlainTextResponse("That sign-out was not from this page.", 403))
        with services.sessions.begin() as session:
            end_session(session, signed.session_id)
        log.info("dashboard: %s signed out", signed.viewer.login)
    response = RedirectResponse("/dashboard/login", status_code=303)
    if cookie:
        # Ours and now ended, or not one we signed: either way worthless. No cookie sent (a
        # cross-site POST, SameSite=Lax) clears nothing.
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
    visitor = visitor_of(request, services)
    if visitor is None:
        return _secure(RedirectResponse("/dashboard/login", status_code=303))
    from app.web.dashboard.pages import index_page

    with services.sessions() as session:
        page = index_page(session, visitor.viewer)
    return _html("index.html.j2", sign_out_token=visitor.sign_out_token, **dict(page))


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
    visitor = visitor_of(request, services)
    if visitor is None:
        return _secure(RedirectResponse("/dashboard/login", status_code=303))
    repo = _visible_repo(services, visitor.viewer, owner, name)
    if repo is None:
        return _not_here()
    from app.web.dashboard.pages import repo_page

    to_redact = secret_values(services.settings)
    with services.sessions() as session:
        data = repo_page(session, services.settings, visitor.viewer, repo, page, to_redact)
    return _html("repo.html.j2", sign_out_token=visitor.sign_out_token, **dict(data))


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
        return _secure(
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
    return _secure(response)

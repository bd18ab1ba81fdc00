"""The dashboard's sign-in: the operator's token, or GitHub's OAuth web flow (the repositories
the person may write to are read once, at the callback); and signing out, which ends the
session on the server. `visitor_of` tells the pages who is asking."""

from __future__ import annotations

import logging
import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

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
from app.web.dashboard.responses import html, secure
from app.web.services import WebServices, get_services

log = logging.getLogger(__name__)
MAX_REPOS_CHECKED = 300
"""Repositories whose write access is read at a GitHub sign-in (one API call each)."""
router = APIRouter(include_in_schema=False)
Services = Annotated[WebServices, Depends(get_services)]


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
    return secure(response)


def _login_page(services: WebServices, error: str = "", status: int = 200) -> Response:
    methods = sign_in_methods(services.settings) if _signer(services).enabled else []
    return html("login.html.j2", status, methods=methods, error=error)


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
            return secure(PlainTextResponse("That sign-out was not from this page.", 403))
        with services.sessions.begin() as session:
            end_session(session, signed.session_id)
        log.info("dashboard: %s signed out", signed.viewer.login)
    response = RedirectResponse("/dashboard/login", status_code=303)
    if cookie:
        # Ours and now ended, or not one we signed: either way worthless. No cookie sent (a
        # cross-site POST, SameSite=Lax) clears nothing.
        response.delete_cookie(SESSION_COOKIE, path="/dashboard")
    return secure(response)


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
    return secure(response)


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

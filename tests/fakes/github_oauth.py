"""GitHub's OAuth web flow on the fake GitHub (the App's "sign in with GitHub").

These are github.com pages, not REST API operations, so GitHub's OpenAPI description does not
cover them; the checks here follow GitHub's documented flow instead: the client id must be
known, the redirect must be the one authorised, a code is good once and for ten minutes, and a
bad code is answered 200 with `error` (as GitHub does).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHub

CODE_TTL_S = 600


@dataclass
class OAuthApp:
    client_id: str
    client_secret: str
    callback_prefix: str = ""
    """A redirect_uri must start with this (GitHub: the App's callback URL)."""


@dataclass
class WebFlow:
    apps: dict[str, OAuthApp] = field(default_factory=dict)
    browser_user: str | None = None
    """Who is signed in to GitHub in the browser; they approve at once."""
    codes: dict[str, tuple[str, str, str, float]] = field(default_factory=dict)
    """code -> (login, client_id, redirect_uri, issued)."""
    authorizations: int = 0


def web_flow_answer(
    fake: FakeGitHub, method: str, path: str, query: dict[str, str], body: Any
) -> tuple[int, Any, dict[str, str]] | None:
    """The answer to a web-flow request, or None when `path` is not part of the flow."""
    if method == "GET" and path == "/login/oauth/authorize":
        return _authorize(fake, query)
    if method == "POST" and path == "/login/oauth/access_token":
        return _access_token(fake, body if isinstance(body, dict) else {})
    return None


def _authorize(fake: FakeGitHub, query: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
    flow = fake.web_flow
    app = flow.apps.get(query.get("client_id", ""))
    redirect = query.get("redirect_uri", "")
    if app is None or not redirect.startswith(app.callback_prefix):
        return 404, {"message": "unknown client or redirect_uri not authorised"}, {}
    if flow.browser_user is None:
        return 401, {"message": "not signed in to GitHub"}, {}
    code = secrets.token_hex(10)
    flow.codes[code] = (flow.browser_user, app.client_id, redirect, time.time())
    flow.authorizations += 1
    location = f"{redirect}?{urlencode({'code': code, 'state': query.get('state', '')})}"
    return 302, {}, {"Location": location}


def _access_token(fake: FakeGitHub, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    flow = fake.web_flow
    app = flow.apps.get(str(body.get("client_id", "")))
    if app is None or body.get("client_secret") != app.client_secret:
        return 200, {"error": "incorrect_client_credentials"}, {}
    found = flow.codes.pop(str(body.get("code", "")), None)
    if (
        found is None
        or found[1] != app.client_id
        or found[2] != body.get("redirect_uri", found[2])
        or time.time() - found[3] > CODE_TTL_S
    ):
        return (
            200,
            {
                "error": "bad_verification_code",
                "error_description": "The code passed is incorrect or expired.",
            },
            {},
        )
    token = f"ghu_{secrets.token_hex(12)}"
    with fake._lock:
        fake.tokens[token] = (found[0], float("inf"))
    return 200, {"access_token": token, "token_type": "bearer", "scope": ""}, {}

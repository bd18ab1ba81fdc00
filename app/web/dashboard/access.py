"""Who is looking at the dashboard, and which repositories they may see.

A sign-in is a signed, expiring cookie (itsdangerous) holding the viewer: the operator sees
every repository; a GitHub user the repositories they could write to when they signed in.
Nothing secret is in it (no GitHub token is kept), and it cannot be forged without the key.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Literal

from itsdangerous import BadSignature, URLSafeTimedSerializer
from pydantic import BaseModel, ValidationError

from app.settings import Settings

SESSION_COOKIE = "spice_dashboard"
STATE_COOKIE = "spice_oauth_state"
STATE_MAX_AGE_S = 600
"""A GitHub sign-in must come back within this."""


class Viewer(BaseModel):
    login: str
    via: Literal["operator", "github"]
    repos: list[str] | None = None
    """Repositories this viewer may see (`owner/name`, lower case); None: every one."""

    def can_see(self, repo: str) -> bool:
        return self.repos is None or repo.lower() in self.repos


OPERATOR = Viewer(login="operator", via="operator")


def _key(settings: Settings) -> bytes | None:
    """The signing key, derived from a secret the operator already keeps (so every web worker
    agrees without another setting); None: nothing to derive it from."""
    secret = settings.webhook_secret or settings.dashboard_token
    if secret is None or not secret.get_secret_value():
        return None
    return hmac.new(secret.get_secret_value().encode(), b"spice dashboard", hashlib.sha256).digest()


class Signer:
    """Signs viewers and sign-in states into cookies, and reads them back."""

    def __init__(self, settings: Settings) -> None:
        key = _key(settings)
        self.enabled = key is not None
        self._max_age = int(settings.dashboard_session_s)
        self._viewers = URLSafeTimedSerializer(key or b"-", salt="viewer")
        self._states = URLSafeTimedSerializer(key or b"-", salt="oauth-state")

    def viewer_cookie(self, viewer: Viewer) -> str:
        return self._viewers.dumps(viewer.model_dump())

    def viewer(self, cookie: str | None) -> Viewer | None:
        if not cookie or not self.enabled:
            return None
        try:
            return Viewer.model_validate(self._viewers.loads(cookie, max_age=self._max_age))
        except (BadSignature, ValidationError):
            return None

    def state_cookie(self, state: str) -> str:
        return self._states.dumps(state)

    def state_matches(self, cookie: str | None, state: str | None) -> bool:
        if not cookie or not state or not self.enabled:
            return False
        try:
            expected = self._states.loads(cookie, max_age=STATE_MAX_AGE_S)
        except BadSignature:
            return False
        return hmac.compare_digest(str(expected), state)


def operator_token_ok(settings: Settings, offered: str | None) -> bool:
    token = settings.dashboard_token
    if token is None or not offered:
        return False
    return hmac.compare_digest(token.get_secret_value().encode(), offered.encode())


def github_sign_in_ready(settings: Settings) -> bool:
    return bool(settings.github_oauth_client_id and settings.github_oauth_client_secret)


SignInMethod = Literal["token", "github"]


def sign_in_methods(settings: Settings) -> list[SignInMethod]:
    methods: list[SignInMethod] = []
    if settings.dashboard_token is not None:
        methods.append("token")
    if github_sign_in_ready(settings):
        methods.append("github")
    return methods

"""Who is looking at the dashboard, and which repositories they may see.

A sign-in is a signed, expiring cookie (itsdangerous) holding the viewer and a session id:
the operator sees every repository; a GitHub user the repositories they could write to when
they signed in. Nothing secret is in it (no GitHub token is kept), it cannot be forged
without the dashboard's own key (`session_key`), and it is honoured only while its session
lives in the store (`app.store.dashboard_sessions`): signing out ends it there.
"""

from __future__ import annotations

import hashlib
import hmac
from functools import cached_property
from typing import Literal, NamedTuple

from itsdangerous import BadSignature, URLSafeTimedSerializer
from pydantic import BaseModel, ValidationError

from app.settings import Settings
from app.web.dashboard.session_key import session_key

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


class SignedIn(BaseModel):
    """What a sign-in cookie holds: the server-side session it belongs to, and the viewer."""

    session_id: str
    viewer: Viewer


class Visitor(NamedTuple):
    viewer: Viewer
    sign_out_token: str
    """What the sign-out form must carry; empty for the operator's bearer token (no session)."""


class Signer:
    """Signs sign-ins and sign-in states into cookies, and reads them back.

    The key (`session_key`) is read when first needed: a request without a cookie needs none.
    """

    def __init__(self, settings: Settings) -> None:
        self.enabled = bool(sign_in_methods(settings))
        self._settings = settings
        self._max_age = int(settings.dashboard_session_s)

    @cached_property
    def _key(self) -> bytes:
        return session_key(self._settings)

    def _serializer(self, salt: str) -> URLSafeTimedSerializer:
        return URLSafeTimedSerializer(self._key, salt=salt)

    def sign_in_cookie(self, signed: SignedIn) -> str:
        return self._serializer("sign-in").dumps(signed.model_dump())

    def signed_in(self, cookie: str | None) -> SignedIn | None:
        """The cookie's sign-in, if we signed it and it has not expired (whether its session
        still lives on the server is the store's to say)."""
        if not cookie or not self.enabled:
            return None
        try:
            data = self._serializer("sign-in").loads(cookie, max_age=self._max_age)
            return SignedIn.model_validate(data)
        except (BadSignature, ValidationError):
            return None

    def sign_out_token(self, session_id: str) -> str:
        """The sign-out form's CSRF token: another site can neither read it (it is in our page
        only) nor compute it (it needs the key)."""
        message = b"sign-out " + session_id.encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def sign_out_token_ok(self, session_id: str, offered: str) -> bool:
        return hmac.compare_digest(self.sign_out_token(session_id).encode(), offered.encode())

    def state_cookie(self, state: str) -> str:
        return self._serializer("oauth-state").dumps(state)

    def state_matches(self, cookie: str | None, state: str | None) -> bool:
        if not cookie or not state or not self.enabled:
            return False
        try:
            expected = self._serializer("oauth-state").loads(cookie, max_age=STATE_MAX_AGE_S)
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

"""GitHub credentials: App (JWT -> installation token, cached until near expiry) or a plain token."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from cachetools import TLRUCache
from github import Auth, BadCredentialsException, Github, GithubIntegration

from app.github.api_version import GITHUB_API_VERSION
from app.github.retries import RetryPolicy
from app.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
TOKEN_MARGIN_S = 300
"""An installation token is renewed this long before GitHub's expiry."""
ACTION_BOT_LOGIN = "github-actions[bot]"


class GitHubAuthError(RuntimeError):
    """No usable GitHub credentials in the settings."""


@dataclass(frozen=True)
class InstallationToken:
    token: str
    expires_at: float
    """Unix time."""


def _token_expiry(_key: int, value: InstallationToken, _now: float) -> float:
    return value.expires_at - TOKEN_MARGIN_S


@dataclass(frozen=True)
class TokenRenewal:
    """How a caller gets a new installation token after GitHub refused the current one."""

    current: Callable[[], str | None]
    """The token in use now, if any (asking mints none)."""
    forget: Callable[[str | None], None]


def renewing(renewal: TokenRenewal | None, func: Callable[[], T]) -> Callable[[], T]:
    """`func`, tried once more with a newly minted token when GitHub answers 401 "Bad
    credentials" (a token revoked before its expiry); a second refusal is raised."""
    if renewal is None:
        return func

    def call() -> T:
        used = renewal.current()
        try:
            return func()
        except BadCredentialsException:
            log.warning("GitHub refused the installation token (401): minting a new one")
            renewal.forget(used)
            return func()

    return call


class AppCredentials:
    """Installation tokens of one GitHub App, minted from its JWT and cached per installation."""

    def __init__(self, settings: Settings, maxsize: int = 1024) -> None:
        if settings.github_app_id is None:
            raise GitHubAuthError("SPICE_GITHUB_APP_ID is not set")
        key = (
            settings.github_private_key.get_secret_value() if settings.github_private_key else None
        )
        if key is None and settings.github_private_key_path is not None:
            key = settings.github_private_key_path.read_text()
        if not key:
            raise GitHubAuthError(
                "SPICE_GITHUB_PRIVATE_KEY or SPICE_GITHUB_PRIVATE_KEY_PATH is required"
            )
        self._integration = GithubIntegration(
            auth=Auth.AppAuth(settings.github_app_id, key),
            base_url=settings.github_api_url,
            retry=None,
            api_version=GITHUB_API_VERSION,
        )
        self._cache: TLRUCache[int, InstallationToken] = TLRUCache(
            maxsize=maxsize, ttu=_token_expiry, timer=time.time
        )
        self._lock = threading.Lock()
        self._slug: str | None = None

    def installation_token(self, installation_id: int) -> InstallationToken:
        """A token valid for at least `TOKEN_MARGIN_S` more seconds."""
        with self._lock:
            cached = self._cache.get(installation_id)
            if cached is not None:
                return cached
            grant = self._integration.get_access_token(installation_id)
            token = InstallationToken(grant.token, grant.expires_at.timestamp())
            self._cache[installation_id] = token
            return token

    def cached_token(self, installation_id: int) -> str | None:
        with self._lock:
            cached = self._cache.get(installation_id)
        return cached.token if cached is not None else None

    def forget(self, installation_id: int, token: str | None) -> None:
        """Drop `token` (GitHub refused it: revoked before its expiry; None: whichever was
        minted during the refused call); the next request mints another. A token another
        thread has renewed already is kept."""
        with self._lock:
            cached = self._cache.get(installation_id)
            if cached is not None and token in (None, cached.token):
                del self._cache[installation_id]

    def renewal(self, installation_id: int) -> TokenRenewal:
        return TokenRenewal(
            current=lambda: self.cached_token(installation_id),
            forget=lambda token: self.forget(installation_id, token),
        )

    def bot_login(self) -> str:
        """`<app-slug>[bot]`: the identity our comments are posted under."""
        if self._slug is None:
            self._slug = self._integration.get_app().slug
        return f"{self._slug}[bot]"


class InstallationAuth(Auth.Auth):
    """An installation's token, asked of `AppCredentials` on every request (cached there until
    `TOKEN_MARGIN_S` before expiry): a long job never sends a token that has expired."""

    def __init__(self, creds: AppCredentials, installation_id: int) -> None:
        self._creds, self._installation_id = creds, installation_id

    @property
    def token_type(self) -> str:
        return "token"

    @property
    def token(self) -> str:
        return self._creds.installation_token(self._installation_id).token


def token_github(token: str, settings: Settings, policy: RetryPolicy | None = None) -> Github:
    """A PyGithub client on `settings.github_api_url`; retries are ours (see retries.py)."""
    return auth_github(Auth.Token(token), settings, policy)


def auth_github(auth: Auth.Auth, settings: Settings, policy: RetryPolicy | None = None) -> Github:
    pacing = policy or RetryPolicy()
    return Github(
        auth=auth,
        base_url=settings.github_api_url,
        retry=None,
        timeout=30,
        per_page=100,  # GitHub's maximum: a long thread is read in as few requests as can be
        api_version=GITHUB_API_VERSION,
        seconds_between_requests=pacing.seconds_between_requests,
        seconds_between_writes=pacing.seconds_between_writes,
    )

"""Authenticated sessions: an App installation's (tokens minted and renewed) or a plain token's."""

from __future__ import annotations

from collections.abc import Callable

from github import Github, GithubException

from app.github.auth import (
    ACTION_BOT_LOGIN,
    AppCredentials,
    GitHubAuthError,
    InstallationAuth,
    TokenRenewal,
    auth_github,
    token_github,
)
from app.github.client import PyGithubRepo
from app.github.repo_location import Renames
from app.github.retries import RetryPolicy, call_with_retries, policy_from_settings
from app.github.seams import GitHubSession
from app.settings import Settings, plain_github_token


class PyGithubSession:
    """`GitHubSession` for one token."""

    def __init__(
        self,
        gh: Github,
        bot_login: str,
        policy: RetryPolicy | None = None,
        renewal: TokenRenewal | None = None,
        renames: Renames | None = None,
    ) -> None:
        self._gh, self._bot_login, self._policy = gh, bot_login, policy or RetryPolicy()
        self._renewal = renewal
        self._renames = renames or Renames()

    @property
    def bot_login(self) -> str:
        return self._bot_login

    def repo(self, full_name: str, repo_id: int | None = None) -> PyGithubRepo:
        return PyGithubRepo(
            self._gh, full_name, self._policy, self._renewal, self._renames, repo_id
        )


SessionFactory = Callable[[int | None], GitHubSession]


def token_owner(gh: Github, policy: RetryPolicy) -> str | None:
    """Whom a plain token acts as: a personal token's user, or None for the workflow's
    GITHUB_TOKEN and installation tokens (GitHub answers them 403 on `/user`)."""
    try:
        data = call_with_retries(
            policy, "who am I", lambda: gh.requester.requestJsonAndCheck("GET", "/user")[1]
        )
    except GithubException as exc:
        if exc.status in (401, 403, 404):
            return None
        raise
    login = data.get("login") if isinstance(data, dict) else None
    return login if isinstance(login, str) and login else None


def session_factory(settings: Settings, policy: RetryPolicy | None = None) -> SessionFactory:
    """Installation id -> session: App auth when an App id is set, else the plain token."""
    pacing = policy or policy_from_settings(settings)
    renames = Renames()  # one per process: every job after a rename uses the new name
    if settings.github_app_id is not None:
        creds = AppCredentials(settings)

        def app_session(installation_id: int | None) -> GitHubSession:
            if installation_id is None:
                raise GitHubAuthError("the event has no installation id (App mode needs one)")
            # The token is asked for on every request (cached until shortly before it
            # expires): a job may outlive the token it started with.
            auth = InstallationAuth(creds, installation_id)
            login = settings.bot_login or creds.bot_login()
            gh = auth_github(auth, settings, pacing)
            return PyGithubSession(gh, login, pacing, creds.renewal(installation_id), renames)

        return app_session
    token = plain_github_token(settings)
    if token is None:
        raise GitHubAuthError("set SPICE_GITHUB_APP_ID (+ private key) or a GitHub token")
    login = settings.bot_login

    def token_session(_installation_id: int | None) -> GitHubSession:
        # Asked on first use, not at start-up: a worker must not need GitHub to boot.
        nonlocal login
        gh = token_github(token, settings, pacing)
        if login is None:
            login = token_owner(gh, pacing) or ACTION_BOT_LOGIN
        return PyGithubSession(gh, login, pacing, renames=renames)

    return token_session

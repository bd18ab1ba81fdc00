"""Signing people in with GitHub (the App's OAuth web flow) and reading what they may write to.

The user's token is used during the callback only, never kept: the dashboard remembers the
repositories it found writable, for as long as the sign-in lasts.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

import httpx

from app.github.api_version import GITHUB_API_VERSION
from app.settings import Settings

WRITE_PERMISSIONS = ("admin", "maintain", "push")
TIMEOUT_S = 10.0


class SignInError(RuntimeError):
    """GitHub refused the sign-in, or did not answer; the message is shown to the person."""


class GitHubSignIn:
    def __init__(self, settings: Settings) -> None:
        self._web = settings.github_web_url.rstrip("/")
        self._api = settings.github_api_url.rstrip("/")
        self._client_id = settings.github_oauth_client_id or ""
        secret = settings.github_oauth_client_secret
        self._client_secret = secret.get_secret_value() if secret else ""
        self._http = httpx.Client(timeout=TIMEOUT_S)

    def close(self) -> None:
        self._http.close()

    def authorize_url(self, state: str, redirect_uri: str) -> str:
        query = {"client_id": self._client_id, "redirect_uri": redirect_uri, "state": state}
        return f"{self._web}/login/oauth/authorize?{urlencode(query)}"

    def exchange(self, code: str, redirect_uri: str) -> str:
        """The user's token for the code GitHub sent back."""
        answer = self._call(
            "POST",
            f"{self._web}/login/oauth/access_token",
            json={
                "client_id": self._client_id,
                "client_secret": self._client_secret,
                "code": code,
                "redirect_uri": redirect_uri,
            },
        )
        token = answer.get("access_token")
        if not isinstance(token, str) or not token:
            why = answer.get("error_description") or answer.get("error") or "no token"
            raise SignInError(f"GitHub refused the sign-in: {why}")
        return token

    def login(self, token: str) -> str:
        login = self._call("GET", f"{self._api}/user", token=token).get("login")
        if not isinstance(login, str) or not login:
            raise SignInError("GitHub did not say who signed in")
        return login

    def writable(self, token: str, repos: list[str]) -> list[str]:
        """Those of `repos` the token's user may write to (lower case)."""
        found: list[str] = []
        for repo in repos:
            owner, _, name = repo.partition("/")
            url = f"{self._api}/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
            data = self._call("GET", url, token=token, missing_ok=True)
            permissions = data.get("permissions")
            if isinstance(permissions, dict) and any(
                permissions.get(p) is True for p in WRITE_PERMISSIONS
            ):
                found.append(repo.lower())
        return found

    def _call(
        self,
        method: str,
        url: str,
        token: str | None = None,
        json: dict[str, str] | None = None,
        missing_ok: bool = False,
    ) -> dict[str, object]:
        headers = {"Accept": "application/json", "X-GitHub-Api-Version": GITHUB_API_VERSION}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            response = self._http.request(method, url, headers=headers, json=json)
        except httpx.HTTPError as exc:
            raise SignInError(f"GitHub could not be reached ({type(exc).__name__})") from exc
        if missing_ok and response.status_code in (403, 404):
            return {}  # a repository this person may not see at all
        if response.status_code >= 400:
            raise SignInError(f"GitHub answered {response.status_code} to the sign-in")
        try:
            body = response.json()
        except ValueError as exc:
            raise SignInError("GitHub's answer to the sign-in was not JSON") from exc
        return body if isinstance(body, dict) else {}

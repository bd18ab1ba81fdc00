"""One retry policy for GitHub calls: backoff on 5xx and rate limits, honouring `Retry-After`.

PyGithub's own urllib3 `retry` is switched off (`retry=None`) so that there is exactly one
policy: it is visible in our logs, bounded, and a wait longer than `max_wait_s` fails loudly
(`RetryAfterTooLong`, carrying the wait) instead of blocking a worker for minutes: the job
goes back to the queue for that long.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import requests  # type: ignore[import-untyped]
from github import GithubException, RateLimitExceededException
from pydantic import BaseModel, Field
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from app.github.events import GitHubEvent, report
from app.settings import Settings

log = logging.getLogger(__name__)
P = ParamSpec("P")
SECONDARY_LIMIT_WAIT_S = 60.0
"""GitHub's guidance for a rate limit that names no wait: at least one minute."""
T = TypeVar("T")


class RetryPolicy(BaseModel):
    """How hard to try a GitHub call before giving up."""

    attempts: int = Field(default=4, ge=1, le=10)
    backoff_s: float = Field(default=1.0, ge=0)
    """First wait after a 5xx; doubles per attempt."""
    max_wait_s: float = Field(default=60.0, ge=0)
    """A server asking for a longer wait makes the call fail instead of blocking."""
    limit_wait_s: float = Field(default=SECONDARY_LIMIT_WAIT_S, ge=0)
    """The wait after a rate limit that names none (429 or 403 without `Retry-After`)."""
    seconds_between_requests: float = Field(default=0.25, ge=0)
    """PyGithub's pacing, which GitHub asks of integrations to avoid secondary rate limits."""
    seconds_between_writes: float = Field(default=1.0, ge=0)


def policy_from_settings(settings: Settings) -> RetryPolicy:
    return RetryPolicy(
        max_wait_s=settings.github_max_wait_s, limit_wait_s=settings.github_limit_wait_s
    )


class RetryAfterTooLong(GithubException):
    """GitHub asked for a wait longer than the policy allows; `wait_s` is that wait."""

    def __init__(self, exc: GithubException, what: str, wait_s: float) -> None:
        super().__init__(
            exc.status, exc.data, exc.headers, f"{what}: GitHub asked to wait {wait_s:.0f}s"
        )
        self.wait_s = wait_s
        self.kind = failure_kind(exc)
        """Why GitHub asked (`rate_limit_primary`, ...), as `failure_kind` names it."""


def _header(exc: GithubException, name: str) -> str | None:
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    return headers.get(name.lower())


def _graphql_error_types(data: Any) -> set[str]:
    errors = data.get("errors") if isinstance(data, dict) else None
    return {str(e.get("type")) for e in errors or [] if isinstance(e, dict)}


def rate_limit_kind(exc: BaseException) -> str | None:
    """`rate_limit_primary` (the hourly budget is spent, REST or GraphQL's HTTP 200 with
    `errors`), `rate_limit_secondary` (429, or 403 with `Retry-After` or GitHub's
    secondary/abuse message), or None."""
    if not isinstance(exc, GithubException) or isinstance(exc, RetryAfterTooLong):
        return None
    if _header(exc, "X-RateLimit-Remaining") == "0" or "RATE_LIMITED" in _graphql_error_types(
        exc.data
    ):
        return "rate_limit_primary"
    message = str((exc.data or {}).get("message", "") if isinstance(exc.data, dict) else "")
    secondary = "secondary rate limit" in message.lower() or "abuse" in message.lower()
    if exc.status == 429 or (exc.status == 403 and (secondary or _header(exc, "Retry-After"))):
        return "rate_limit_secondary"
    if isinstance(exc, RateLimitExceededException):
        return "rate_limit_secondary"
    return None


def failure_kind(exc: BaseException) -> str:
    limit = rate_limit_kind(exc)
    if limit:
        return limit
    if isinstance(exc, GithubException):
        kinds = {401: "unauthorized", 404: "not_found", 410: "gone"}
        if exc.status >= 500:
            return "server_error"
        if 300 <= exc.status < 400:
            return "redirect"
        return kinds.get(exc.status, "other")
    return "network" if isinstance(exc, requests.RequestException) else "other"


def describe(exc: GithubException) -> str:
    """One line for a stored error: the kind, the HTTP status, GitHub's message and the
    details GitHub gives beside it (a 422's `errors[].message`, GraphQL's errors)."""
    kind = exc.kind if isinstance(exc, RetryAfterTooLong) else failure_kind(exc)
    data = exc.data if isinstance(exc.data, dict) else {}
    said = [data.get("message")] + [
        e.get("message") for e in data.get("errors") or [] if isinstance(e, dict)
    ]
    text = "; ".join(str(s) for s in said if s) or str(exc.message or exc.data or "")
    waited = f" ({exc.message})" if isinstance(exc, RetryAfterTooLong) else ""
    return f"GitHub API error {exc.status} ({kind}): {text}{waited}"


def is_retryable(exc: BaseException) -> bool:
    """5xx, rate limits (primary and secondary), dropped connections."""
    if isinstance(exc, RetryAfterTooLong):
        return False
    if rate_limit_kind(exc):
        return True
    if isinstance(exc, GithubException):
        return exc.status >= 500 or _header(exc, "Retry-After") is not None
    return isinstance(exc, requests.ConnectionError | requests.Timeout)


def is_transient(exc: BaseException) -> bool:
    """Worth trying again: now (`is_retryable`) or after the long wait GitHub asked for."""
    return is_retryable(exc) or isinstance(exc, RetryAfterTooLong)


def server_wait_s(exc: BaseException, limit_wait_s: float = SECONDARY_LIMIT_WAIT_S) -> float | None:
    """The wait GitHub asked for: `Retry-After`, the primary limit's reset time, or (a limit
    naming no wait) `limit_wait_s`, which GitHub wants to be at least a minute."""
    if not isinstance(exc, GithubException):
        return None
    retry_after = _header(exc, "Retry-After")
    if retry_after is not None and retry_after.strip().isdigit():
        return float(retry_after)
    if _header(exc, "X-RateLimit-Remaining") == "0":
        reset = _header(exc, "X-RateLimit-Reset")
        if reset and reset.isdigit():
            return max(0.0, float(reset) - time.time())
    if rate_limit_kind(exc):
        return limit_wait_s
    return None


def call_with_retries(
    policy: RetryPolicy, what: str, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """Run `func`, retrying transient GitHub failures per `policy`; re-raise the last error."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = server_wait_s(exc, policy.limit_wait_s) if exc else None
        backoff = policy.backoff_s * 2 ** (state.attempt_number - 1)
        chosen = asked if asked is not None else backoff
        kind = failure_kind(exc) if exc else "other"
        if chosen > policy.max_wait_s:
            assert isinstance(exc, GithubException)
            log.warning("github %s on %s: GitHub asks %.0fs; job deferred", kind, what, chosen)
            report(GitHubEvent(kind, what, chosen, deferred=True))
            raise RetryAfterTooLong(exc, what, chosen) from exc
        if state.attempt_number < policy.attempts:  # tenacity asks for the wait before `stop`
            log.warning(
                "github call %s failed (%s: %s); retry %d in %.1fs",
                what,
                kind,
                exc,
                state.attempt_number,
                chosen,
            )
            report(GitHubEvent(kind, what, chosen))
        return chosen

    retrying = Retrying(
        stop=stop_after_attempt(policy.attempts),
        wait=wait,
        retry=retry_if_exception(is_retryable),
        reraise=True,
    )
    try:
        return retrying(func, *args, **kwargs)
    except Exception as exc:
        if not isinstance(exc, RetryAfterTooLong):
            report(GitHubEvent(failure_kind(exc), what))
        raise

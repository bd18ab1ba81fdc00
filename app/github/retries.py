"""One retry policy for GitHub calls: backoff on 5xx and rate limits, honouring `Retry-After`.

PyGithub's own urllib3 `retry` is switched off (`retry=None`) so that there is exactly one
policy: it is visible in our logs, bounded, and a wait longer than `max_wait_s` fails loudly
instead of blocking a worker for minutes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import requests  # type: ignore[import-untyped]
from github import GithubException, RateLimitExceededException
from pydantic import BaseModel, Field
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

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
    seconds_between_requests: float = Field(default=0.25, ge=0)
    """PyGithub's pacing, which GitHub asks of integrations to avoid secondary rate limits."""
    seconds_between_writes: float = Field(default=1.0, ge=0)


class RetryAfterTooLong(GithubException):
    """GitHub asked for a wait longer than the policy allows."""


def _header(exc: GithubException, name: str) -> str | None:
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    return headers.get(name.lower())


def is_retryable(exc: BaseException) -> bool:
    """5xx, rate limits (primary and secondary), dropped connections."""
    if isinstance(exc, RetryAfterTooLong):
        return False
    if isinstance(exc, RateLimitExceededException):
        return True
    if isinstance(exc, GithubException):
        return exc.status >= 500 or exc.status == 429 or _header(exc, "Retry-After") is not None
    return isinstance(exc, requests.ConnectionError | requests.Timeout)


def server_wait_s(exc: BaseException) -> float | None:
    """The wait GitHub asked for: `Retry-After`, or the primary limit's reset time."""
    if not isinstance(exc, GithubException):
        return None
    retry_after = _header(exc, "Retry-After")
    if retry_after is not None and retry_after.strip().isdigit():
        return float(retry_after)
    if _header(exc, "X-RateLimit-Remaining") == "0":
        reset = _header(exc, "X-RateLimit-Reset")
        if reset and reset.isdigit():
            return max(0.0, float(reset) - time.time())
    if isinstance(exc, RateLimitExceededException):
        return SECONDARY_LIMIT_WAIT_S
    return None


def call_with_retries(
    policy: RetryPolicy, what: str, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """Run `func`, retrying transient GitHub failures per `policy`; re-raise the last error."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = server_wait_s(exc) if exc else None
        backoff = policy.backoff_s * 2 ** (state.attempt_number - 1)
        chosen = asked if asked is not None else backoff
        if chosen > policy.max_wait_s:
            assert isinstance(exc, GithubException)
            raise RetryAfterTooLong(
                exc.status, exc.data, exc.headers, f"{what}: GitHub asked to wait {chosen:.0f}s"
            ) from exc
        if state.attempt_number < policy.attempts:  # tenacity asks for the wait before `stop`
            log.warning(
                "github call %s failed (%s); retry %d in %.1fs",
                what,
                exc,
                state.attempt_number,
                chosen,
            )
        return chosen

    retrying = Retrying(
        stop=stop_after_attempt(policy.attempts),
        wait=wait,
        retry=retry_if_exception(is_retryable),
        reraise=True,
    )
    return retrying(func, *args, **kwargs)

"""One retry policy for model calls: transient errors only, exponential backoff."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tenacity import (
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
)
from tenacity.stop import stop_base

R = TypeVar("R")

_TRANSIENT_NAMES = (
    "Timeout",
    "APIConnectionError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "APIError",
)
_PERMANENT_NAMES = (
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "BadRequestError",
    "ContextWindowExceededError",
    "ContentPolicyViolationError",
    "UnsupportedParamsError",
)


def is_transient(exc: BaseException) -> bool:
    """Timeouts, rate limits, 5xx and connection errors are worth another attempt."""
    import litellm

    permanent = tuple(getattr(litellm, n) for n in _PERMANENT_NAMES if hasattr(litellm, n))
    if isinstance(exc, permanent):
        return False
    transient = tuple(getattr(litellm, n) for n in _TRANSIENT_NAMES if hasattr(litellm, n))
    return isinstance(exc, (*transient, TimeoutError, ConnectionError))


def call_with_retry(
    fn: Callable[[], R], attempts: int, backoff_s: float, deadline_s: float | None = None
) -> R:
    """Run fn, retrying transient failures, no new attempt after `deadline_s`; the last
    error propagates unchanged."""
    stop: stop_base = stop_after_attempt(attempts)
    if deadline_s is not None:
        stop = stop | stop_after_delay(deadline_s)
    retrying = Retrying(
        stop=stop,
        wait=wait_exponential(multiplier=backoff_s, max=max(backoff_s * 8, 0.001)),
        retry=retry_if_exception(is_transient),
        reraise=True,
    )
    return retrying(fn)

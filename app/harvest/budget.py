"""Per-installation GitHub request budget: paced per process, capped per hour across machines."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

DEFAULT_PER_HOUR = 4000.0
"""GitHub grants an installation 5,000 requests an hour at least; leave the App the rest."""


class SharedWindow(Protocol):
    """A cap shared by every process: 0 when a request may go, else seconds to wait."""

    def take(self, now: float) -> float: ...


class RedisHourWindow:
    """At most `limit` requests per clock hour for one key, counted in Redis."""

    def __init__(self, client: Any, key: str, limit: float) -> None:
        self._redis, self._key, self._limit = client, key, limit

    def take(self, now: float) -> float:
        window = int(now // 3600)
        key = f"{self._key}:{window}"
        count = int(self._redis.incr(key))
        if count == 1:
            self._redis.expire(key, 3700)
        return 0.0 if count <= self._limit else (window + 1) * 3600 - now


class RateBudget:
    """A per-installation request budget shared by every thread of this process.

    A token bucket paces requests to `per_hour`; when GitHub reports fewer than `reserve`
    requests left, every caller waits for the reset, so the triage App keeps its share.
    """

    def __init__(
        self,
        per_hour: float = DEFAULT_PER_HOUR,
        burst: int = 200,
        reserve: int = 200,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        shared: SharedWindow | None = None,
    ) -> None:
        self.rate, self.burst, self.reserve = per_hour / 3600.0, float(burst), reserve
        self._clock, self._sleep = clock, sleep
        self._tokens = float(burst)
        self._stamp = clock()
        self._paused_until = 0.0
        self._lock = threading.Lock()
        self.waited_s = 0.0
        self._shared = shared

    def acquire(self) -> None:
        """Take one request from the budget, waiting as long as it takes."""
        self._take_local()
        while self._shared is not None and (wait := self._shared.take(self._clock())) > 0:
            with self._lock:
                self.waited_s += wait
            self._sleep(wait)

    def _take_local(self) -> None:
        while True:
            with self._lock:
                now = self._clock()
                self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                wait = max(0.0, self._paused_until - now)
                if wait == 0.0 and self._tokens >= 1.0:
                    self._tokens -= 1.0
                    return
                wait = wait or (1.0 - self._tokens) / self.rate
                self.waited_s += wait
            self._sleep(wait)

    def observe(self, headers: dict[str, Any]) -> None:
        """Read GitHub's `X-RateLimit-*` answer headers; pause everyone near exhaustion."""
        low = {k.lower(): str(v) for k, v in headers.items()}
        remaining, reset = low.get("x-ratelimit-remaining"), low.get("x-ratelimit-reset")
        low_now = bool(remaining and remaining.isdigit() and int(remaining) <= self.reserve)
        if low_now and reset and reset.isdigit():
            with self._lock:
                self._paused_until = max(self._paused_until, float(reset))


_BUDGETS: dict[str, RateBudget] = {}
_BUDGETS_LOCK = threading.Lock()


def budget_for(key: str, per_hour: float | None = None, redis_url: str | None = None) -> RateBudget:
    """The one budget of an installation (or token) in this process; with Redis, the hourly
    cap is shared by every process on every machine."""
    with _BUDGETS_LOCK:
        if key not in _BUDGETS or (per_hour and _BUDGETS[key].rate * 3600 != per_hour):
            limit = per_hour or DEFAULT_PER_HOUR
            shared = None
            if redis_url:
                import redis

                client = redis.Redis.from_url(redis_url)
                shared = RedisHourWindow(client, f"spice:harvest-budget:{key}", limit)
            _BUDGETS[key] = RateBudget(limit, shared=shared)
        return _BUDGETS[key]

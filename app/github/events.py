"""What GitHub did to us, by kind: rate-limit waits and failures, for logs and metrics.

The retry policy reports here; a process's metrics subscribe (`subscribe`). Kept apart from
the retry code so that neither PyGithub nor prometheus leaks into the other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class GitHubEvent:
    kind: str
    """`rate_limit_primary`, `rate_limit_secondary`, `server_error`, `unauthorized`, `gone`,
    `not_found`, `redirect`, `network`, `other`."""
    what: str
    """The call, e.g. `add labels octo-org/widgets`."""
    wait_s: float | None = None
    """The wait GitHub asked for (or the policy chose) before trying again; None: no retry."""
    deferred: bool = False
    """The wait was longer than a job may block: the job goes back to the queue for it."""


Listener = Callable[[GitHubEvent], None]
_listeners: list[Listener] = []
_lock = threading.Lock()


def subscribe(listener: Listener) -> Callable[[], None]:
    """Call `listener` on every event from now on; returns the unsubscribe function."""
    with _lock:
        _listeners.append(listener)

    def unsubscribe() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return unsubscribe


def report(event: GitHubEvent) -> None:
    """Tell every listener (the retry policy has logged the event already)."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        listener(event)

"""What a job raises to the queue: a failed delivery, or one that waits for GitHub.

Kept apart from the handler seam so the web process, which only enqueues, imports neither
the handlers' results nor the store of assessments."""

from __future__ import annotations


class DeliveryFailed(Exception):
    """A handler reported failure; `retryable` says whether trying again can help, and
    `retry_after_s` how long to wait first when GitHub said so (a rate limit)."""

    def __init__(self, message: str, retryable: bool, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class JobDeferred(Exception):
    """The job waits `delay_s` for GitHub (a rate limit) before running again: not a failure,
    so it uses up none of the job's retries."""

    def __init__(self, message: str, delay_s: float) -> None:
        super().__init__(message)
        self.delay_s = delay_s

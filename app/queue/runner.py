"""One job run: claim the key, handle its latest delivery, store the outcome, close the run."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import UTC, datetime

import orjson
from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker

from app.metrics import ServiceMetrics
from app.queue.errors import DeliveryFailed, JobDeferred
from app.queue.handler import DeliveryHandler, ReportsAssessments
from app.redaction import redact
from app.routing import Route, UnknownKind
from app.settings import Settings
from app.store.assessments import AssessmentRecord, save_assessment
from app.store.deliveries import delivery_body, get_delivery
from app.store.jobs import ClaimedRun, claim_run, finish_run, release_run
from app.store.payloads import CorruptPayload, PrunedPayload

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DeferralBudget:
    """How long a job may keep waiting for GitHub (rate limits) before it fails for good."""

    max_count: int = 12
    max_s: float = 6 * 3600.0

    def spent(self, attempt: int, waited_s: float, next_wait_s: float) -> bool:
        return attempt >= self.max_count or waited_s + next_wait_s > self.max_s


def deferral_budget(settings: Settings) -> DeferralBudget:
    return DeferralBudget(settings.job_max_deferrals, settings.job_max_deferred_s)


UNREADABLE = (CorruptPayload, PrunedPayload, ValidationError, UnknownKind)
"""A stored payload (or route) no retry can read; a redelivery from GitHub can."""


class JobRunner:
    """Runs jobs for deliveries; every state change is committed before the next step."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        handler: DeliveryHandler,
        metrics: ServiceMetrics | None = None,
        secrets: tuple[str, ...] = (),
        deferrals: DeferralBudget | None = None,
    ) -> None:
        self._sessions = sessions
        self._deferrals = deferrals or DeferralBudget()
        self._handler = handler
        self._metrics = metrics
        self._secrets = secrets
        """Redacted from stored errors (a provider's error may echo the key it was sent)."""
        self._active: dict[str, ClaimedRun] = {}
        self._active_lock = threading.Lock()

    def run(self, delivery_id: str, final: bool = True) -> None:
        """Run the job of this delivery's key until no newer delivery is waiting.

        `final` says no queue retry follows: a failure then marks the job failed. A task
        whose job is not pending (coalesced into a run already done or under way) is a no-op.
        """
        with self._sessions() as session:
            delivery = get_delivery(session, delivery_id)
            if delivery is None:
                log.warning("job for unknown delivery=%s skipped", delivery_id)
                return
            key = delivery.job_key
        while True:
            with self._sessions.begin() as session:
                run = claim_run(session, key)
            if run is None:
                return
            with self._active_lock:
                self._active[run.key] = run
            try:
                again = self._run_once(run, final)
            finally:
                with self._active_lock:
                    self._active.pop(run.key, None)
            if not again:
                return

    def release_active(self) -> list[str]:
        """Hand every run still going in this process back as pending; their delivery ids
        (to enqueue again). Called when the worker must stop before they end."""
        with self._active_lock:
            runs = list(self._active.values())
        released = []
        for run in runs:
            with self._sessions.begin() as session:
                if release_run(session, run):
                    released.append(run.delivery_id)
        return released

    def _run_once(self, run: ClaimedRun, final: bool) -> bool:
        with self._sessions() as session:
            delivery = get_delivery(session, run.delivery_id)
            assert delivery is not None  # job rows only point at stored deliveries
            event, received_at = delivery.event, delivery.received_at
            stored = {
                "kind": delivery.kind,
                "action": delivery.action,
                "repo": delivery.repo,
                "number": delivery.number,
                "job_key": delivery.job_key,
                "installation": delivery.installation,
                "event": event,
            }
        log.info(
            "job start key=%s delivery=%s event=%s attempt=%d",
            run.key,
            run.delivery_id,
            event,
            run.attempt,
        )
        try:
            # Decoded here: a damaged row fails its job with the reason, like a bad body. The
            # route is the one stored at the door: never decided again from the payload.
            route = Route.model_validate(stored)
            outcome = self._handler(route, orjson.loads(delivery_body(delivery)), run.delivery_id)
        except Exception as exc:
            # Record why on the job before the queue's retry (or the final failure) takes over.
            hopeless = isinstance(exc, UNREADABLE) or (
                isinstance(exc, DeliveryFailed) and not exc.retryable
            )
            delay = exc.retry_after_s if isinstance(exc, DeliveryFailed) else None
            error = redact(f"{type(exc).__name__}: {exc}", self._secrets)
            waited_s = _age_s(received_at)
            if delay is not None and self._deferrals.spent(run.attempt, waited_s, delay):
                error = (
                    f"gave up: GitHub made this job wait {run.attempt} times "
                    f"over {waited_s:.0f}s; last: {error}"
                )
                delay, hopeless = None, True
            # A rate limit is not the job's failure: it waits, however many retries are left.
            again = self._close(run, error=error, final=(final or hopeless) and delay is None)
            log.warning("job error key=%s delivery=%s error=%s", run.key, run.delivery_id, error)
            if self._metrics:
                self._metrics.errors.labels("job").inc()
                self._metrics.jobs_finished.labels("deferred" if delay else "error").inc()
            if again or hopeless:
                return again
            if delay is not None:
                raise JobDeferred(error, delay) from exc
            raise
        records = list(outcome.assessments) if isinstance(outcome, ReportsAssessments) else []
        again = self._close(run, records=records)
        log.info(
            "job done key=%s delivery=%s assessments=%d", run.key, run.delivery_id, len(records)
        )
        self._observe(records, received_at)
        return again

    def _close(
        self,
        run: ClaimedRun,
        records: list[AssessmentRecord] | None = None,
        error: str | None = None,
        final: bool = True,
    ) -> bool:
        with self._sessions.begin() as session:
            for record in records or []:
                save_assessment(session, record, run.delivery_id)
            return finish_run(session, run, error=error, final=final)

    def _observe(self, records: list[AssessmentRecord], received_at: datetime) -> None:
        if self._metrics is None:
            return
        self._metrics.jobs_finished.labels("done").inc()
        if not records:
            return
        self._metrics.label_latency.observe(_age_s(received_at))
        for record in records:
            self._metrics.llm_tokens.labels("input").inc(record.tokens_in)
            self._metrics.llm_tokens.labels("output").inc(record.tokens_out)
            if record.cost_usd:
                self._metrics.llm_cost.inc(record.cost_usd)


def _age_s(received_at: datetime) -> float:
    # SQLite hands datetimes back naive; every stored time is UTC.
    arrived = received_at if received_at.tzinfo else received_at.replace(tzinfo=UTC)
    return (datetime.now(UTC) - arrived).total_seconds()

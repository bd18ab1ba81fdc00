"""The seam between the queue and the GitHub handlers: a callable per delivery, loaded by name."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from app.queue.outcome_records import record_from_result
from app.settings import Settings
from app.store.assessments import AssessmentRecord

if TYPE_CHECKING:
    from app.handlers.deps import HandlerDeps

DEFAULT_HANDLER = "app.queue.handler:github_handler"


class DeliveryHandler(Protocol):
    """Handles one delivery's payload; raises to have the job retried."""

    def __call__(self, event: str, payload: dict[str, Any], delivery_id: str) -> object: ...


HandlerFactory = Callable[[Settings], DeliveryHandler]


@runtime_checkable
class ReportsAssessments(Protocol):
    """An outcome that carries labelling results to store (other outcomes store nothing)."""

    @property
    def assessments(self) -> Sequence[AssessmentRecord]: ...


def load_handler(spec: str, settings: Settings) -> DeliveryHandler:
    """Build the handler named `module:factory`, where factory(settings) returns it."""
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ValueError(f"handler spec must look like 'module:factory', got {spec!r}")
    factory: HandlerFactory = getattr(importlib.import_module(module_name), attr)
    return factory(settings)


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


@dataclass(frozen=True)
class StoredOutcome:
    assessments: list[AssessmentRecord]


def github_handler(settings: Settings) -> DeliveryHandler:
    """The production handler: the GitHub handlers' dispatch with its dependencies bound."""
    # Imported here: only workers need the GitHub handlers, PyGithub and the engine.
    from app.handlers.deps import default_deps

    deps = default_deps(settings)
    deps.assessed_before = store_lookup(settings)
    return handler_for(deps)


def store_lookup(settings: Settings) -> Callable[[str, str, int, str], bool]:
    """`assessed_before` on the App's store (the database the runner writes results to)."""
    from app.store.assessments import assessed_before
    from app.store.engine import database_url, make_engine, session_factory

    sessions = session_factory(make_engine(database_url(settings)))

    def lookup(kind: str, repo: str, number: int, key: str) -> bool:
        with sessions() as session:
            return assessed_before(session, kind, repo, number, key)

    return lookup


def handler_for(deps: HandlerDeps) -> DeliveryHandler:
    """`handle_delivery` bound to `deps`; a failed outcome raises `DeliveryFailed`."""
    from app.handlers.dispatch import handle_delivery

    def handle(event: str, payload: dict[str, Any], delivery_id: str) -> StoredOutcome:
        outcome = handle_delivery(event, payload, delivery_id, deps)
        if not outcome.ok:
            problems = outcome.errors or [f"config: {outcome.config_error}"]
            raise DeliveryFailed(
                "; ".join(problems),
                retryable=outcome.retryable,
                retry_after_s=outcome.retry_after_s if outcome.retryable else None,
            )
        if outcome.repo is None or outcome.number is None:
            return StoredOutcome([])
        labels = sorted(outcome.labels_wanted)
        return StoredOutcome(
            [
                record_from_result(result, outcome.repo, outcome.number, labels)
                for result in outcome.assessments
            ]
        )

    return handle

"""The production delivery handler for the queue: GitHub handlers' dispatch, bound to its
dependencies, reporting results as store records."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.calibration import Calibration, calibrate_clarity
from app.handlers.deps import HandlerDeps, default_deps
from app.handlers.dispatch import handle_routed
from app.harvest.fanout import settings_contexts
from app.queue.errors import DeliveryFailed
from app.queue.handler import DeliveryHandler, StoredOutcome
from app.queue.outcome_records import record_from_result
from app.routing import Route
from app.settings import Settings
from app.store.assessments import assessed_before
from app.store.engine import session_factory
from app.store.human_labels import human_labels, record_human_label
from app.store.survivor_feedback import StoredSurvivorFeedback


def github_handler(
    settings: Settings,
    engine: Engine,
    on_instance_saved: Callable[[str], object] | None = None,
) -> DeliveryHandler:
    """The production handler: the GitHub handlers' dispatch with its dependencies bound,
    every store use on the process's one `engine`."""
    sessions = session_factory(engine)
    production = default_deps(settings)
    deps = replace(
        production,
        on_instance_saved=on_instance_saved,
        record_human_label=human_label_recorder(sessions),
        calibration_for=calibration_lookup(settings, sessions),
        assessed_before=store_lookup(sessions),
        harvest_contexts=settings_contexts(settings, engine=engine),
        survivor_feedback=StoredSurvivorFeedback(sessions),
    )
    return handler_for(deps)


def human_label_recorder(
    sessions: sessionmaker[Session],
) -> Callable[[str, int, str, int | None, str], bool]:
    """`record_human_label` on the App's store."""

    def record(repo: str, number: int, dimension: str, human: int | None, login: str) -> bool:
        with sessions.begin() as session:
            return record_human_label(session, repo, number, dimension, human, login)

    return record


def calibration_lookup(
    settings: Settings, sessions: sessionmaker[Session]
) -> Callable[[str], Calibration | None]:
    """A repository's clarity calibration, from its maintainers' labels in the App's store."""

    def lookup(repo: str) -> Calibration | None:
        with sessions() as session:
            rows = [r for r in human_labels(session, repo) if r.dimension == "clarity"]
        return calibrate_clarity(rows, settings.calibration_min_labels)

    return lookup


def store_lookup(sessions: sessionmaker[Session]) -> Callable[[str, str, int, str], bool]:
    """`assessed_before` on the App's store (the database the runner writes results to)."""

    def lookup(kind: str, repo: str, number: int, key: str) -> bool:
        with sessions() as session:
            return assessed_before(session, kind, repo, number, key)

    return lookup


def handler_for(deps: HandlerDeps) -> DeliveryHandler:
    """`handle_delivery` bound to `deps`; a failed outcome raises `DeliveryFailed`."""

    def handle(route: Route, payload: dict[str, Any], delivery_id: str) -> StoredOutcome:
        outcome = handle_routed(route, payload, delivery_id, deps)
        failure, done = outcome.failure, outcome.done
        if failure is not None:
            wait = failure.retry_after_s if failure.retryable else None
            raise DeliveryFailed(failure.message, failure.retryable, wait)
        if done is None or done.repo is None or done.number is None:
            return StoredOutcome([])
        labels = sorted(done.labels.wanted) if done.labels else []
        # Where the handler worked: an issue transferred meanwhile is stored under its new home.
        return StoredOutcome(
            [record_from_result(r, done.repo, done.number, labels) for r in done.assessments]
        )

    return handle

"""Harvested instances and the listing cursor in the service store (idempotent upserts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.harvest.build import Built
from app.harvest.label import SpiceLabels
from app.store.harvest_cursors import get_cursor, reset_cursor, save_cursor
from app.store.models import TaskInstance, utcnow
from app.store.upsert import dialect_insert
from spice_engine.dataset.completion import RECIPE_FIELD
from spice_engine.runs.session import Status
from spice_engine.runs.validate_rows import COMPUTED

UNDECIDED = {
    Status.SANDBOX_UNAVAILABLE,
    Status.ENVIRONMENT_FAILED,
    Status.MISSING_PYTHON,
    Status.TIMEOUT,
    Status.RESOURCE_LIMIT,
    Status.ERROR,
}
"""Validation statuses that say the run could not tell, not that the instance is invalid."""


@dataclass(frozen=True)
class Cursor:
    page: int = 1
    last_number: int = 0
    processed: int = 0


@dataclass(frozen=True)
class StoredInstance:
    instance: dict[str, Any]
    labels: dict[str, Any]


class HarvestStore:
    """One instance per `instance_id`: any number of workers may save the same PR."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def save(self, built: Built, labels: SpiceLabels | None) -> None:
        """Insert, or refresh the content; `labels=None` keeps the labels already stored, and
        new labels keep the validation already stored (harvesting again changes neither)."""
        fresh = labels or SpiceLabels(linked_issues=built.issues)
        with self._sessions.begin() as session:
            if labels is not None and labels.validation is None:
                stored = session.scalar(
                    select(TaskInstance.labels).where(
                        TaskInstance.instance_id == built.instance.instance_id
                    )
                )
                if stored and stored.get("validation"):
                    fresh = labels.model_copy(update={"validation": stored["validation"]})
            stmt = dialect_insert(session, TaskInstance).values(
                instance_id=built.instance.instance_id,
                repo=built.instance.repo,
                pr_number=built.pr_number,
                instance=built.instance.model_dump(),
                labels=fresh.model_dump(),
                created_at=utcnow(),
            )
            update: dict[str, Any] = {"instance": stmt.excluded.instance}
            if labels is not None:
                update["labels"] = stmt.excluded.labels
            session.execute(stmt.on_conflict_do_update(index_elements=["instance_id"], set_=update))

    def instance(self, instance_id: str) -> StoredInstance | None:
        with self._sessions() as session:
            found = session.execute(
                select(TaskInstance.instance, TaskInstance.labels).where(
                    TaskInstance.instance_id == instance_id
                )
            ).first()
        return StoredInstance(dict(found[0]), dict(found[1])) if found else None

    def save_validation(self, instance_id: str, validated: dict[str, Any]) -> None:
        """Keep what `spice validate` computed for the instance: `spice.validation`, with the
        fields it computed (FAIL_TO_PASS, …) under `fields` so a later harvest keeps them.

        A validation that could not tell (no sandbox, an environment that did not build, a
        timeout) never replaces a stored `valid` one: it is kept beside it as `last_attempt`."""
        computed = {k: validated[k] for k in (*COMPUTED, RECIPE_FIELD) if k in validated}
        validation = dict(validated["spice"]["validation"]) | {"fields": computed}
        with self._sessions.begin() as session:
            row = session.scalars(
                select(TaskInstance).where(TaskInstance.instance_id == instance_id)
            ).one()
            kept = dict(row.labels).get("validation") or {}
            if kept.get("status") == "valid" and validation["status"] in UNDECIDED:
                attempt = {k: validation.get(k) for k in ("status", "detail")}
                validation = dict(kept) | {"last_attempt": attempt}
            row.labels = dict(row.labels) | {"validation": validation}

    def save_test_strength(self, instance_id: str, strength: dict[str, Any]) -> None:
        """Keep what `spice test-strength` measured for the instance (`spice.test_strength`)."""
        with self._sessions.begin() as session:
            row = session.scalars(
                select(TaskInstance).where(TaskInstance.instance_id == instance_id)
            ).one()
            row.labels = dict(row.labels) | {"test_strength": strength}

    def is_labelled(self, instance_id: str) -> bool:
        with self._sessions() as session:
            labels = session.scalar(
                select(TaskInstance.labels).where(TaskInstance.instance_id == instance_id)
            )
        return bool(labels and labels.get("labelled"))

    def instances(self, repo: str | None = None) -> list[StoredInstance]:
        """Stored instances, oldest PR first (per repository)."""
        query = select(TaskInstance.instance, TaskInstance.labels).order_by(
            TaskInstance.repo, TaskInstance.pr_number
        )
        if repo:
            query = query.where(TaskInstance.repo == repo)
        with self._sessions() as session:
            return [StoredInstance(dict(i), dict(lab)) for i, lab in session.execute(query)]

    def cursor(self, repo: str) -> Cursor:
        with self._sessions() as session:
            row = get_cursor(session, repo)
            return Cursor(row.page, row.last_number, row.processed) if row else Cursor()

    def advance(self, repo: str, cursor: Cursor) -> None:
        with self._sessions.begin() as session:
            save_cursor(session, repo, cursor.page, cursor.last_number, cursor.processed)

    def restart(self, repo: str) -> None:
        with self._sessions.begin() as session:
            reset_cursor(session, repo)

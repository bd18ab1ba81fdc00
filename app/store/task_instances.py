"""Harvested task instances: idempotent upsert by instance id."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import TaskInstance, utcnow
from app.store.upsert import dialect_insert


def upsert_task_instance(
    session: Session,
    instance_id: str,
    repo: str,
    pr_number: int,
    instance: dict[str, Any],
    labels: dict[str, Any],
) -> None:
    """Insert the instance, or replace its content and labels when harvested again."""
    stmt = dialect_insert(session, TaskInstance).values(
        instance_id=instance_id,
        repo=repo,
        pr_number=pr_number,
        instance=instance,
        labels=labels,
        created_at=utcnow(),
    )
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=["instance_id"],
            set_={"instance": stmt.excluded.instance, "labels": stmt.excluded.labels},
        )
    )


def get_task_instance(session: Session, instance_id: str) -> TaskInstance | None:
    return session.scalar(select(TaskInstance).where(TaskInstance.instance_id == instance_id))

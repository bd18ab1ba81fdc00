"""Maintainers' final labels on items we assessed: the human labels our own are measured by."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import Assessment, HumanLabel, utcnow
from app.store.upsert import dialect_insert


def record_human_label(
    session: Session, repo: str, number: int, dimension: str, human: int | None, login: str
) -> bool:
    """Keep `login`'s final label of `dimension` on the item, tied to our latest assessment of
    it; False (nothing stored) when we never assessed the item or that dimension."""
    ours = session.scalars(
        select(Assessment)
        .where(Assessment.repo == repo, Assessment.number == number)
        .order_by(Assessment.id.desc())
        .limit(1)
    ).first()
    voted = next((v for v in (ours.votes if ours else []) if v.get("dimension") == dimension), None)
    if ours is None or voted is None:
        return False
    values = {
        "kind": ours.kind,
        "repo": repo,
        "number": number,
        "dimension": dimension,
        "human_score": human,
        "our_score": voted.get("score"),
        "our_votes": list(voted.get("votes") or []),
        "model": ours.model,
        "prompt_version": ours.prompt_version,
        "assessment_id": ours.id,
        "login": login,
        "changed_at": utcnow(),
    }
    stmt = dialect_insert(session, HumanLabel).values(**values)
    key = ["repo", "number", "dimension"]
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=key, set_={k: stmt.excluded[k] for k in values if k not in key}
        )
    )
    return True


def human_labels(
    session: Session, repo: str | None = None, since: datetime | None = None
) -> list[HumanLabel]:
    query = select(HumanLabel).order_by(HumanLabel.repo, HumanLabel.number, HumanLabel.dimension)
    if repo:
        query = query.where(HumanLabel.repo == repo)
    if since:
        query = query.where(HumanLabel.changed_at >= since)
    return list(session.scalars(query))


def untouched_items(
    session: Session, repo: str | None = None, since: datetime | None = None
) -> int:
    """Items we assessed on which nobody changed a label of ours (never counted as agreement)."""
    corrected = (
        select(HumanLabel.id)
        .where(HumanLabel.repo == Assessment.repo, HumanLabel.number == Assessment.number)
        .exists()
    )
    query = select(Assessment.repo, Assessment.number).where(~corrected).distinct()
    if repo:
        query = query.where(Assessment.repo == repo)
    if since:
        query = query.where(Assessment.created_at >= since)
    return len(session.execute(query).all())

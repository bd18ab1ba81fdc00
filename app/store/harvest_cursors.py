"""Resumable harvest progress: one listing cursor per repository (table `harvest_cursors`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.store.models import Base, utcnow
from app.store.upsert import dialect_insert


class HarvestCursor(Base):
    """Where the merged-PR listing of a repository stands (sorted by creation, ascending)."""

    __tablename__ = "harvest_cursors"

    id: Mapped[int] = mapped_column(primary_key=True)
    repo: Mapped[str] = mapped_column(String(200), unique=True)
    page: Mapped[int] = mapped_column(default=1)
    """The listing page holding the next unprocessed PR (pages only grow: new PRs append)."""
    last_number: Mapped[int] = mapped_column(default=0)
    """Every closed PR numbered up to here has been handled (built, skipped or enqueued)."""
    processed: Mapped[int] = mapped_column(default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


def get_cursor(session: Session, repo: str) -> HarvestCursor | None:
    return session.scalar(select(HarvestCursor).where(HarvestCursor.repo == repo.lower()))


def save_cursor(session: Session, repo: str, page: int, last_number: int, processed: int) -> None:
    """Move the cursor forward; a cursor never moves back (concurrent coordinators)."""
    stmt = dialect_insert(session, HarvestCursor).values(
        repo=repo.lower(),
        page=page,
        last_number=last_number,
        processed=processed,
        updated_at=utcnow(),
    )
    ex = stmt.excluded
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=["repo"],
            set_={
                "page": ex.page,
                "last_number": ex.last_number,
                "processed": ex.processed,
                "updated_at": ex.updated_at,
            },
            where=HarvestCursor.last_number <= ex.last_number,
        )
    )


def reset_cursor(session: Session, repo: str) -> None:
    cursor = get_cursor(session, repo)
    if cursor is not None:
        session.delete(cursor)

"""SQLAlchemy 2 table models of the store (one declarative base, portable SQLite/PostgreSQL types)."""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {  # noqa: RUF012 - SQLAlchemy reads this class attribute
        datetime: DateTime(timezone=True),
        dict[str, Any]: JSON,
        list[Any]: JSON,
    }


class JobState(enum.StrEnum):
    pending = "pending"
    running = "running"
    done = "done"
    failed = "failed"
    cancelled = "cancelled"
    """The App was uninstalled or suspended, or lost the repository, before the job ran."""


class DeliveryStatus(enum.StrEnum):
    queued = "queued"
    """A run for its job key was enqueued."""
    coalesced = "coalesced"
    """Folded into a run already pending or running for the same key."""
    done = "done"
    failed = "failed"
    cancelled = "cancelled"
    """Its job was cancelled (installation gone or suspended): it will not run."""
    applied = "applied"
    """An installation event: its change was made when it came in (no job)."""


class InstallationState(enum.StrEnum):
    active = "active"
    suspended = "suspended"
    deleted = "deleted"


class Installation(Base):
    """What GitHub last said of an installation; none stored means active."""

    __tablename__ = "installations"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    """GitHub's installation id."""
    state: Mapped[str] = mapped_column(String(20))
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)


class RemovedRepository(Base):
    """A repository taken from an installation (until it is added back): its jobs do not run."""

    __tablename__ = "removed_repositories"

    installation: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    repo: Mapped[str] = mapped_column(String(200), primary_key=True)
    """`owner/name`, lower case."""
    removed_at: Mapped[datetime] = mapped_column(default=utcnow)


class Delivery(Base):
    """One accepted webhook delivery, kept verbatim so a job can run from it later."""

    __tablename__ = "deliveries"

    id: Mapped[int] = mapped_column(primary_key=True)
    delivery_id: Mapped[str] = mapped_column(String(100), unique=True)
    event: Mapped[str] = mapped_column(String(60))
    action: Mapped[str | None] = mapped_column(String(60))
    repo: Mapped[str | None] = mapped_column(String(200))
    job_key: Mapped[str] = mapped_column(String(300), index=True)
    kind: Mapped[str | None] = mapped_column(String(20))
    """The route decided when the delivery came in (app.routing); the worker reads it."""
    number: Mapped[int | None]
    installation: Mapped[int | None] = mapped_column(BigInteger, index=True)
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    payload_sha256: Mapped[str] = mapped_column(String(64))
    """Of the payload as received (before `payload_codec`)."""
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    payload_codec: Mapped[str | None] = mapped_column(String(10))
    """How `payload` is encoded (app.store.payloads); None: the bytes as received."""
    status: Mapped[str] = mapped_column(String(20), default=DeliveryStatus.queued)


class Job(Base):
    """The one run-state per issue/PR key: bursts of deliveries share it (coalescing)."""

    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(300), unique=True)
    state: Mapped[str] = mapped_column(String(20), default=JobState.pending, index=True)
    generation: Mapped[int] = mapped_column(default=1)
    """Bumped by every delivery; a run that finishes behind it runs again."""
    run_generation: Mapped[int] = mapped_column(default=0)
    """The generation the current (or last) run started from."""
    delivery_id: Mapped[str] = mapped_column(String(100))
    """The latest delivery for this key: what the next run processes."""
    attempts: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(Text)
    cancelled_for: Mapped[str | None] = mapped_column(String(20))
    """Why a cancelled job was cancelled (app.store.installations.CancelReason)."""
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class Assessment(Base):
    """A labelling result for one issue or PR input (idempotent on its input hash)."""

    __tablename__ = "assessments"
    __table_args__ = (UniqueConstraint("kind", "repo", "number", "input_hash"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    """`issue` or `pr`."""
    repo: Mapped[str] = mapped_column(String(200))
    number: Mapped[int]
    input_hash: Mapped[str] = mapped_column(String(64))
    delivery_id: Mapped[str | None] = mapped_column(String(100))
    labels: Mapped[list[Any]]
    votes: Mapped[list[Any]]
    rationales: Mapped[list[Any]]
    tokens_in: Mapped[int] = mapped_column(default=0)
    tokens_out: Mapped[int] = mapped_column(default=0)
    cost_usd: Mapped[float | None]
    model: Mapped[str] = mapped_column(String(200))
    prompt_version: Mapped[str] = mapped_column(String(100))
    result: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class TaskInstance(Base):
    """A harvested SWE-bench-style task instance (filled by the harvest pipeline)."""

    __tablename__ = "task_instances"
    __table_args__ = (Index("ix_task_instances_repo_pr", "repo", "pr_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    instance_id: Mapped[str] = mapped_column(String(300), unique=True)
    repo: Mapped[str] = mapped_column(String(200))
    pr_number: Mapped[int]
    instance: Mapped[dict[str, Any]]
    labels: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class HumanLabel(Base):
    """A maintainer's final word on one dimension of an item we assessed (a correction when
    it differs from ours): the label of that family they left on the item, or none."""

    __tablename__ = "human_labels"
    __table_args__ = (UniqueConstraint("repo", "number", "dimension"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    repo: Mapped[str] = mapped_column(String(200))
    number: Mapped[int]
    dimension: Mapped[str] = mapped_column(String(60))
    human_score: Mapped[int | None]
    """The score of the family's label the person left; None: they left none."""
    our_score: Mapped[int | None]
    our_votes: Mapped[list[Any]]
    model: Mapped[str] = mapped_column(String(200))
    prompt_version: Mapped[str] = mapped_column(String(100))
    assessment_id: Mapped[int]
    login: Mapped[str] = mapped_column(String(100))
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)


class DashboardSession(Base):
    """A dashboard sign-in: its cookie is honoured only while this row lives, so signing out
    (which deletes it) ends the sign-in on the server, not just in one browser."""

    __tablename__ = "dashboard_sessions"

    id_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    """Of the session id in the cookie: a copy of the database holds no live session id."""
    login: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class ShownSurvivor(Base):
    """A surviving mutant the App showed a repository's reviewers (the check run's notes, the
    comment's example), by the id a maintainer answers it with."""

    __tablename__ = "shown_survivors"
    __table_args__ = (UniqueConstraint("repo", "survivor_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repo: Mapped[str] = mapped_column(String(200))
    survivor_id: Mapped[str] = mapped_column(String(8))
    number: Mapped[int]
    """The pull request it was first shown on."""
    operator: Mapped[str] = mapped_column(String(60))
    path: Mapped[str] = mapped_column(String(500))
    place: Mapped[str] = mapped_column(String(300))
    """`name()` of the enclosing function, or `line N`."""
    shown_at: Mapped[datetime] = mapped_column(default=utcnow)


class SurvivorAnswer(Base):
    """A maintainer's "not useful" for a shown survivor: that kind of mutant (operator ×
    place) is not shown in the repository again."""

    __tablename__ = "survivor_answers"
    __table_args__ = (UniqueConstraint("repo", "survivor_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    repo: Mapped[str] = mapped_column(String(200), index=True)
    survivor_id: Mapped[str] = mapped_column(String(8))
    number: Mapped[int]
    """The pull request the answer was given on."""
    operator: Mapped[str] = mapped_column(String(60))
    path: Mapped[str] = mapped_column(String(500))
    place: Mapped[str] = mapped_column(String(300))
    login: Mapped[str] = mapped_column(String(100))
    answered_at: Mapped[datetime] = mapped_column(default=utcnow)

"""Assessment rows: what a run concluded, idempotent on (kind, repo, number, input hash)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.store.models import Assessment, utcnow
from app.store.upsert import dialect_insert
from spice_engine.results import ASSESSMENT, AnyAssessment


class DimensionVotes(BaseModel):
    """One dimension's final score and its votes, as the `votes` column stores them."""

    dimension: str
    score: int | None
    votes: list[int]


class AssessmentRecord(BaseModel):
    """One labelling result as stored (votes and rationales in vote order): the one schema
    the `assessments` table is written with, and `stored_result` reads `result` back with."""

    kind: Literal["issue", "pr"]
    repo: str
    number: int
    input_hash: str
    labels: list[str]
    votes: list[DimensionVotes]
    rationales: list[str]
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    model: str
    prompt_version: str
    result: AnyAssessment
    """The engine's assessment, typed: a result the dashboard could not read is refused here,
    where it is written, not found out when a page shows it."""


def stored_result(row: Assessment) -> AnyAssessment:
    """A row's `result` as the engine's typed assessment (ValidationError for a row some older
    version wrote in another shape)."""
    return ASSESSMENT.validate_python(row.result)


def save_assessment(session: Session, record: AssessmentRecord, delivery_id: str | None) -> None:
    """Insert, or replace the row of the same input (a re-run of unchanged input)."""
    values = record.model_dump(mode="json") | {"delivery_id": delivery_id, "created_at": utcnow()}
    stmt = dialect_insert(session, Assessment).values(**values)
    key = ["kind", "repo", "number", "input_hash"]
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=key,
            set_={name: stmt.excluded[name] for name in values if name not in key},
        )
    )


def assessments_for(session: Session, repo: str, number: int) -> list[Assessment]:
    return list(
        session.scalars(
            select(Assessment)
            .where(Assessment.repo == repo, Assessment.number == number)
            .order_by(Assessment.id)
        )
    )


def assessed_before(session: Session, kind: str, repo: str, number: int, input_hash: str) -> bool:
    """Whether this exact input of this item was assessed (and the result stored) already."""
    found = session.scalar(
        select(Assessment.id).where(
            Assessment.kind == kind,
            Assessment.repo == repo,
            Assessment.number == number,
            Assessment.input_hash == input_hash,
        )
    )
    return found is not None

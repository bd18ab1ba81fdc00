"""`spice eval --from-store`: our stored labels against the maintainers' final labels."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from app.settings import Settings
from app.store.human_labels import human_labels, untouched_items
from app.store.opening import open_store
from spice_engine.evaluation.predictions import Prediction, Predictions


class FromStore(BaseModel):
    gold: dict[str, dict[str, int]]
    """item -> dimension -> the maintainer's final score. Items are named as SWE-bench names
    instances (`owner__name-N`), so the report groups them by repository."""
    preds: Predictions
    untouched: int
    """Items we assessed on which nobody changed a label of ours (not counted)."""
    removed_only: int
    """Our label removed with none of its family left: a disagreement without a score."""


def from_store(settings: Settings, repo: str | None, since: datetime | None) -> FromStore:
    with open_store(settings).sessions() as session:
        rows = human_labels(session, repo, since)
        untouched = untouched_items(session, repo, since)
    gold: dict[str, dict[str, int]] = {}
    preds: Predictions = {}
    removed_only = 0
    for row in rows:
        if row.human_score is None or row.our_score is None:
            removed_only += row.human_score is None
            continue
        item = f"{row.repo.replace('/', '__', 1)}-{row.number}"
        votes = [int(v) for v in row.our_votes]
        gold.setdefault(item, {})[row.dimension] = row.human_score
        preds.setdefault(item, {})[row.dimension] = Prediction(
            majority=row.our_score, max_of_votes=max(votes, default=row.our_score), votes=votes
        )
    return FromStore(gold=gold, preds=preds, untouched=untouched, removed_only=removed_only)

"""Vote aggregation per RUBRICS.md §5: strict majority, else the median."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel

from spice_engine.dimensions import Dimension, guests
from spice_engine.dimensions import dimension as dimension_of
from spice_engine.models import Agreement, DimensionResult, Vote

BINARY_BOUNDARY = 2
"""Scores at or above this are the "bad" binary class (underspecified, inadequate tests)."""


def aggregate_scores(scores: Sequence[int]) -> int | None:
    """Strict-majority value, else the lower median (the middle value for three distinct votes)."""
    if not scores:
        return None
    value, count = Counter(scores).most_common(1)[0]
    if count * 2 > len(scores):
        return value
    return int(statistics.median_low(scores))


def agreement_of(scores: Sequence[int]) -> Agreement | None:
    """Unanimous, strict majority, or split."""
    if not scores:
        return None
    top = Counter(scores).most_common(1)[0][1]
    if top == len(scores):
        return Agreement.UNANIMOUS
    if top * 2 > len(scores):
        return Agreement.MAJORITY
    return Agreement.SPLIT


def is_controversial(scores: Sequence[int], boundary: int = BINARY_BOUNDARY) -> bool:
    """True when some votes fall on each side of the binary boundary."""
    return any(s < boundary for s in scores) and any(s >= boundary for s in scores)


def aggregate_dimension(
    dimension: str, votes: list[Vote], requested: int, errors: list[str] | None = None
) -> DimensionResult:
    """Build the dimension result from the valid votes (failed runs are already dropped)."""
    scores = [v.score for v in votes]
    try:
        boundary = dimension_of(dimension).boundary
    except KeyError:
        boundary = BINARY_BOUNDARY
    return DimensionResult(
        dimension=dimension,
        score=aggregate_scores(scores),
        votes=votes,
        valid_votes=len(votes),
        requested_votes=requested,
        agreement=agreement_of(scores),
        controversial=is_controversial(scores, boundary),
        max_score=max(scores) if scores else None,
        errors=list(errors or []),
    )


def aggregate_guests(
    host: Dimension, answers: Sequence[BaseModel], requested: int
) -> dict[str, DimensionResult]:
    """The dimensions asked inside `host`'s prompt, each from its field of the same answers."""
    return {
        g.key: aggregate_dimension(g.key, [Vote(score=g.vote_of(a)) for a in answers], requested)
        for g in guests(host)
    }

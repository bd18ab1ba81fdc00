"""Aggregation rules of RUBRICS.md §5."""

from __future__ import annotations

import pytest

from spice_engine.aggregation import (
    aggregate_dimension,
    aggregate_scores,
    agreement_of,
    is_controversial,
)
from spice_engine.models import Agreement, Vote


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([2, 2, 1], 2),
        ([0, 1, 3], 1),
        ([3, 0, 1], 1),
        ([1, 1, 1], 1),
        ([2, 3], 2),  # two valid votes that disagree: lower median
        ([3], 3),
        ([0, 0, 3, 3, 1], 1),
        ([], None),
    ],
)
def test_majority_else_median(scores: list[int], expected: int | None) -> None:
    assert aggregate_scores(scores) == expected


def test_agreement_and_controversy() -> None:
    assert agreement_of([1, 1, 1]) is Agreement.UNANIMOUS
    assert agreement_of([1, 2, 1]) is Agreement.MAJORITY
    assert agreement_of([0, 1, 2]) is Agreement.SPLIT
    assert agreement_of([]) is None
    assert is_controversial([1, 1, 2])
    assert not is_controversial([0, 1, 1])
    assert not is_controversial([2, 3, 3])


def test_dimension_result_reports_votes_and_worst() -> None:
    votes = [Vote(score=s, rationale=str(s)) for s in (0, 2, 2)]
    result = aggregate_dimension("clarity", votes, requested=3, errors=[])
    assert result.score == 2
    assert result.max_score == 2
    assert result.valid_votes == 3
    assert result.controversial
    empty = aggregate_dimension("clarity", [], requested=3, errors=["timeout"])
    assert empty.score is None and empty.agreement is None and empty.errors == ["timeout"]

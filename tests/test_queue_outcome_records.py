"""Assessment rows from engine results as the handlers report them."""

from __future__ import annotations

from app.queue.outcome_records import record_from_result
from spice_engine.models import (
    Agreement,
    DimensionResult,
    Issue,
    IssueAssessment,
    PromptRef,
    Usage,
    Vote,
)


def test_issue_assessment_becomes_a_row() -> None:
    result = IssueAssessment(
        issue=Issue(title="t", body="b"),
        clarity=DimensionResult(
            dimension="clarity",
            score=1,
            votes=[Vote(score=1, rationale="fine"), Vote(score=2, rationale="vague")],
            valid_votes=2,
            requested_votes=2,
            agreement=Agreement.MAJORITY,
            controversial=False,
        ),
        candidate_solution=None,
        model="openai/fake",
        prompt=PromptRef(id="issue_clarity", version="2"),
        engine_version="0.1.0",
        usage=Usage(input=100, output=20, cost_usd=0.003),
        input_hash="abc123",
    )
    dump = result.model_dump(mode="json", exclude={"issue"})
    row = record_from_result(dump, "o/r", 5, ["spice:clarity-1"])
    assert (row.kind, row.repo, row.number, row.input_hash) == ("issue", "o/r", 5, "abc123")
    assert row.votes == [{"dimension": "clarity", "score": 1, "votes": [1, 2]}]
    assert row.rationales == ["fine", "vague"]
    assert (row.tokens_in, row.tokens_out, row.cost_usd) == (100, 20, 0.003)
    assert (row.model, row.prompt_version) == ("openai/fake", "issue_clarity/v2")
    assert row.result == dump


def test_unknown_cost_is_stored_as_null() -> None:
    dump = {"kind": "pull_request", "usage": {"input": 5, "cost_known": False, "cost_usd": 0.0}}
    row = record_from_result(dump, "o/r", 2, [])
    assert (row.kind, row.cost_usd, row.tokens_in, row.prompt_version) == ("pr", None, 5, "unknown")
    assert len(row.input_hash) == 64

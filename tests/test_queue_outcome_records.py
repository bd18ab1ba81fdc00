"""Assessment rows from engine results as the handlers report them."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.queue.outcome_records import record_from_result
from app.store.assessments import AssessmentRecord
from app.store.models import Assessment, utcnow
from app.web.dashboard.views import decision_row
from spice_engine.models import (
    Agreement,
    DimensionResult,
    Issue,
    IssueAssessment,
    PromptRef,
    Usage,
    Vote,
)
from spice_engine.pr.linked_issues import LinkedIssues
from spice_engine.pr.models import ContextReport, PRAssessment
from spice_engine.results import ASSESSMENT
from tests.assessment_samples import issue_assessment


def test_issue_assessment_becomes_a_row() -> None:
    result = IssueAssessment(
        issue=Issue(title="t", body="b", repo="o/r", number=5),
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
    row = record_from_result(result, "o/r", 5, ["spice:clarity-1"])
    assert (row.kind, row.repo, row.number, row.input_hash) == ("issue", "o/r", 5, "abc123")
    assert [v.model_dump() for v in row.votes] == [
        {"dimension": "clarity", "score": 1, "votes": [1, 2]}
    ]
    assert row.rationales == ["fine", "vague"]
    assert (row.tokens_in, row.tokens_out, row.cost_usd) == (100, 20, 0.003)
    assert (row.model, row.prompt_version) == ("openai/fake", "issue_clarity/v2")
    # The title names the decision on the dashboard; the body stays on GitHub only.
    stored = row.model_dump(mode="json")["result"]
    assert stored["issue"] == {"title": "t", "body": "", "repo": "o/r", "number": 5, "url": None}
    assert ASSESSMENT.validate_python(stored) == result.model_copy(
        update={"issue": result.issue.model_copy(update={"body": ""})}
    )


def test_unknown_cost_is_stored_as_null() -> None:
    result = _pr(Usage(input=5, cost_known=False))
    row = record_from_result(result, "o/r", 2, [])
    assert (row.kind, row.cost_usd, row.tokens_in) == ("pr", None, 5)
    assert row.prompt_version == "difficulty/v1"
    assert row.input_hash == "prhash"  # the engine's hash, the one the handler checked


def test_a_stored_result_reads_back_as_the_same_typed_assessment() -> None:
    result = _pr(Usage(input=5))
    row = record_from_result(result, "o/r", 2, [])
    assert ASSESSMENT.validate_python(row.model_dump(mode="json")["result"]) == result


def test_a_result_of_another_shape_is_refused_where_it_is_written() -> None:
    row = record_from_result(_pr(Usage(input=5)), "o/r", 2, []).model_dump(mode="json")
    broken = row | {"result": {k: v for k, v in row["result"].items() if k != "difficulty"}}
    with pytest.raises(ValidationError, match="difficulty"):
        AssessmentRecord.model_validate(broken)


def _pr(usage: Usage) -> PRAssessment:
    dim = DimensionResult(
        dimension="difficulty",
        score=1,
        votes=[Vote(score=1)],
        valid_votes=1,
        requested_votes=1,
        agreement=Agreement.UNANIMOUS,
        controversial=False,
    )
    return PRAssessment(
        repo="o/r",
        number=2,
        base_sha=None,
        linked_issues=LinkedIssues(same_repo=[], cross_repo=[]),
        judged_against="pr_description",
        files=[],
        tests=None,
        difficulty=dim,
        context=ContextReport(mode="patches_only", cap=1000),
        model="openai/fake",
        prompts=[PromptRef(id="difficulty", version="1")],
        engine_version="0.1.0",
        usage=usage,
        input_hash="prhash",
    )


def test_a_row_an_older_version_wrote_shows_its_votes_and_says_what_it_lacks() -> None:
    # Before the store kept one schema, issue rows were written without their `issue`.
    record = record_from_result(issue_assessment("o/r", 5, [1, 1, 2]), "o/r", 5, []).model_dump(
        mode="json"
    )
    old = {k: v for k, v in record["result"].items() if k != "issue"}
    row = Assessment(**(record | {"result": old, "created_at": utcnow()}))
    shown = decision_row(row, "https://github.com", ())
    assert (shown.title, shown.dimensions[0].label, shown.dimensions[0].votes) == (
        "",
        "minor-gaps",
        ["1", "1", "2"],
    )
    assert "older version" in shown.note and shown.evidence == []

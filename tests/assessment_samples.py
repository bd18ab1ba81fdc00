"""A real engine result for tests whose subject is the queue or the store, not the labels: the
store's schema takes nothing else (app.store.assessments.AssessmentRecord)."""

from __future__ import annotations

from spice_engine.aggregation import aggregate_dimension
from spice_engine.models import Issue, IssueAssessment, PromptRef, Usage, Vote


def issue_assessment(
    repo: str, number: int, votes: list[int], title: str = "Crash on empty input"
) -> IssueAssessment:
    clarity = aggregate_dimension(
        "clarity", [Vote(score=s, rationale=f"vote {i + 1}") for i, s in enumerate(votes)], 3
    )
    return IssueAssessment(
        model="openai/fake",
        engine_version="test",
        usage=Usage(input=120, output=30, cost_usd=0.0002, requests=len(votes)),
        input_hash=f"{repo}#{number}:{votes}",
        issue=Issue(title=title, repo=repo, number=number),
        clarity=clarity,
        candidate_solution=None,
        prompt=PromptRef(id="issue_clarity", version="1"),
    )

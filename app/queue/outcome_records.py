"""Assessment rows from the engine's results as the GitHub handlers report them."""

from __future__ import annotations

from app.store.assessments import AssessmentRecord, DimensionVotes
from spice_engine.dimensions import dimension
from spice_engine.results import AnyAssessment, IssueAssessment


def record_from_result(
    result: AnyAssessment, repo: str, number: int, labels: list[str]
) -> AssessmentRecord:
    """One row from an `IssueAssessment` or `PRAssessment`, keyed on its input hash."""
    dims = list(result.results().values())
    usage = result.usage
    if isinstance(result, IssueAssessment):
        # The issue's body is not kept twice: it is on GitHub (and in the stored payload until
        # retention prunes it); its title, number and link name the decision on the dashboard.
        result = result.model_copy(update={"issue": result.issue.model_copy(update={"body": ""})})
    return AssessmentRecord(
        kind="issue" if isinstance(result, IssueAssessment) else "pr",
        repo=repo,
        number=number,
        input_hash=result.input_hash,
        labels=labels,
        votes=[
            DimensionVotes(dimension=d.dimension, score=d.score, votes=[v.score for v in d.votes])
            for d in dims
        ],
        # Derived dimensions (the candidate solution) share their prompt's rationales.
        rationales=[v.rationale for d in dims if dimension(d.dimension).prompt_id for v in d.votes],
        tokens_in=usage.input,
        tokens_out=usage.output,
        cost_usd=usage.cost_usd if usage.cost_known else None,
        model=result.model,
        prompt_version=",".join(f"{p.id}/v{p.version}" for p in result.prompt_refs()) or "unknown",
        result=result,
    )

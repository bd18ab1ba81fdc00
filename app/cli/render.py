"""How the CLI shows results: the text summaries and the documented JSON, shared by commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from spice_engine.dimensions import CANDIDATE
from spice_engine.issue_signals import IssueSignals
from spice_engine.models import DimensionResult, IssueAssessment
from spice_engine.pr.models import PRAssessment, PROptions
from spice_engine.pr.repo_context import ContextOptions
from spice_engine.summary import result_lines

if TYPE_CHECKING:
    from app.settings import Settings


def assessment_json(result: IssueAssessment) -> dict[str, object]:
    """The documented machine output: the full result plus flat `tokens` and `cost_usd`."""
    data = result.model_dump(mode="json")
    data["prompt_id"] = result.prompt.id
    data["prompt_version"] = result.prompt.version
    data["tokens"] = {"input": result.usage.input, "output": result.usage.output}
    data["cost_usd"] = result.usage.cost_usd if result.usage.cost_known else None
    return data


def issue_summary(result: IssueAssessment) -> str:
    c = result.clarity
    # The model's verdict and the deterministic signal (under evidence) can differ: each line
    # says whose it is.
    voted = result.results().get("candidate_solution")
    votes = f"  votes {' · '.join(_candidate_names(voted))}" if voted else ""
    lines = [
        *result_lines(result),
        "candidate solution, the model's verdict: "
        f"{result.candidate_solution.value if result.candidate_solution else '-'}{votes}"
        f"{' (looks misleading)' if result.candidate_misleading else ''}",
    ]
    if result.evidence:
        try:
            signals = IssueSignals.model_validate(result.evidence)
        except ValidationError:
            signals = None  # evidence supplied by a caller in another shape
        if signals is not None:
            lines.append("evidence, deterministic signals from the text (shown to the model):")
            lines += [f"  {line}" for line in signals.summary().splitlines()]
    if result.questions:
        lines.append("questions for the reporter:")
        lines += [f"  - {q}" for q in result.questions]
    for i, v in enumerate(c.votes, 1):
        lines.append(f"vote {i} ({v.score}): {v.rationale}")
    for err in c.errors:
        lines.append(f"dropped: {err}")
    u = result.usage
    lines.append(
        f"model {result.model} · prompt {result.prompt.id} v{result.prompt.version} · "
        f"{u.input:,} in / {u.output:,} out tokens · {u.cost_text()}"
        + (" · issue truncated" if result.truncated else "")
    )
    return "\n".join(lines)


def _candidate_names(voted: DimensionResult) -> list[str]:
    return [CANDIDATE.name_of(v.score) for v in voted.votes]


def pr_options(settings: Settings, max_prompt_tokens: int | None) -> PROptions:
    context = ContextOptions(max_prompt_tokens=max_prompt_tokens or 24_000)
    return PROptions(votes=settings.votes, cost_cap_usd=settings.cost_cap_usd, context=context)


def pr_summary(result: PRAssessment) -> str:
    lines = result_lines(result)
    if result.tests is None:
        lines.insert(0, "tests: not judged")
    lines += [f"counter-example: {c}" for c in result.counter_examples]
    ctx = result.context
    per_prompt = " · ".join(f"{k} {n:,}" for k, n in ctx.prompt_tokens.items()) or "none"
    lines.append(
        f"context: {ctx.mode}, prompt tokens: {per_prompt} (cap {ctx.cap:,})"
        + (f", trimmed: {'; '.join(ctx.trimmed)}" if ctx.trimmed else "")
    )
    lines += [f"note: {n}" for n in result.notes]
    u = result.usage
    lines.append(
        f"model {result.model} · {u.input:,} in / {u.output:,} out tokens · {u.cost_text()}"
    )
    return "\n".join(lines)

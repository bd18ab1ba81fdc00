"""How the CLI shows results: the text summaries and the documented JSON, shared by commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from spice_engine.issue_signals import IssueSignals
from spice_engine.models import IssueAssessment
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
    lines = [
        *result_lines(result),
        f"candidate solution: {result.candidate_solution.value if result.candidate_solution else '-'}"
        f"{' (looks misleading)' if result.candidate_misleading else ''}",
    ]
    if result.evidence:
        try:
            signals = IssueSignals.model_validate(result.evidence)
        except ValidationError:
            signals = None  # evidence supplied by a caller in another shape
        if signals is not None:
            lines.append("evidence:")
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
        f"{u.input} in / {u.output} out tokens · {u.cost_text()}"
        + (" · issue truncated" if result.truncated else "")
    )
    return "\n".join(lines)


def pr_options(settings: Settings, max_prompt_tokens: int | None) -> PROptions:
    context = ContextOptions(max_prompt_tokens=max_prompt_tokens or 24_000)
    return PROptions(votes=settings.votes, cost_cap_usd=settings.cost_cap_usd, context=context)


def pr_summary(result: PRAssessment) -> str:
    lines = result_lines(result)
    if result.tests is None:
        lines.insert(0, "tests: not judged")
    lines += [f"counter-example: {c}" for c in result.counter_examples]
    ctx = result.context
    lines.append(
        f"context: {ctx.mode}, prompt tokens {ctx.prompt_tokens} (cap {ctx.cap})"
        + (f", trimmed: {'; '.join(ctx.trimmed)}" if ctx.trimmed else "")
    )
    lines += [f"note: {n}" for n in result.notes]
    u = result.usage
    lines.append(f"model {result.model} · {u.input} in / {u.output} out tokens · {u.cost_text()}")
    return "\n".join(lines)

"""issues opened / edited / reopened (and `/spice relabel` on an issue) -> the issue pipeline."""

from __future__ import annotations

import logging
from typing import Any

from app.handlers.outcome import Done, Skipped
from app.handlers.run_context import RunContext
from app.model_policy import choose
from spice_engine.issue_clarity import IssueOptions, assess_issue, build_issue_prompts, input_hash
from spice_engine.issue_signals.extract import extract_signals
from spice_engine.models import Issue, IssueAssessment

log = logging.getLogger(__name__)


def on_issue(ctx: RunContext, payload: dict[str, Any]) -> Done:
    """The event table's entry (app.routing)."""
    return handle_issue(ctx, ctx.number)


def handle_issue(ctx: RunContext, number: int, force: bool = False, explain: bool = False) -> Done:
    """Assess the issue's LATEST text (fetched, not taken from the payload) and publish."""
    settings, config = ctx.deps.settings, ctx.config
    if not config.pipelines.issues:
        raise Skipped("the issue pipeline is disabled in .github/spice.yml")
    issue = ctx.repo.get_issue(number)
    if issue.moved_to is not None:
        log.info(
            "issue %s#%d was transferred to %s#%d", ctx.repo.full_name, number, *issue.moved_to
        )
        return handle_issue(ctx.moved_to(*issue.moved_to), issue.moved_to[1], force, explain)
    if issue.is_pull_request:
        raise Skipped("this issue is a pull request")
    if not force and (config.ignores(issue.author) or issue.author == ctx.bot):
        raise Skipped(f"author {issue.author!r} is ignored")
    choice = choose(settings, config, "issues")
    chat = ctx.deps.chat(choice.model)
    evidence = extract_signals(issue.title, issue.body).model_dump(mode="json")
    options = IssueOptions(
        votes=choice.votes, cost_cap_usd=choice.cost_cap_usd, allow_unpriced=choice.allow_unpriced
    )
    engine_issue = Issue(title=issue.title, body=issue.body, repo=ctx.repo.full_name, number=number)
    prompts = build_issue_prompts(engine_issue, options, evidence)  # once: hashed, then voted on
    ctx.skip_if_unchanged("issue", number, input_hash(prompts, chat.name, options.votes), force)
    warnings = list(choice.warnings)
    result = calibrated(ctx, assess_issue(engine_issue, chat, options, evidence, prompts), warnings)
    score = result.clarity.score or 0
    actionable = score >= 2 or result.clarity.controversial or bool(result.questions)
    return ctx.publish_assessment(
        "issues", number, issue.labels, result, actionable, explain, warnings
    )


def calibrated(ctx: RunContext, result: IssueAssessment, warnings: list[str]) -> IssueAssessment:
    """The repository's calibration applied to clarity, and said in the comment."""
    lookup = ctx.deps.calibration_for
    if not ctx.config.calibration or lookup is None or not result.clarity.votes:
        return result
    calibration = lookup(ctx.repo.full_name)
    if calibration is None:
        return result
    worst = max(vote.score for vote in result.clarity.votes)
    warnings.append(calibration.explain())
    clarity = result.clarity.model_copy(update={"score": worst})
    return result.model_copy(update={"clarity": clarity})

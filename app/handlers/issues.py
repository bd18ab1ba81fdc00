"""issues opened / edited / reopened (and `/spice relabel` on an issue) -> the issue pipeline."""

from __future__ import annotations

import logging
from typing import Any

from app.handlers.run_context import RunContext
from app.model_policy import choose
from spice_engine.issue_clarity import IssueOptions, assess_issue, build_issue_prompts, input_hash
from spice_engine.issue_signals.extract import extract_signals
from spice_engine.models import Issue, IssueAssessment

log = logging.getLogger(__name__)


def on_issue(ctx: RunContext, payload: dict[str, Any]) -> None:
    """The event table's entry (app.routing)."""
    handle_issue(ctx, ctx.number)


def handle_issue(ctx: RunContext, number: int, force: bool = False, explain: bool = False) -> None:
    """Assess the issue's LATEST text (fetched, not taken from the payload) and publish."""
    out, settings, config = ctx.outcome, ctx.deps.settings, ctx.config
    out.pipeline = "issues"
    if not config.pipelines.issues:
        out.skipped = "the issue pipeline is disabled in .github/spice.yml"
        return
    issue = ctx.repo.get_issue(number)
    if issue.moved_to is not None:
        log.info(
            "issue %s#%d was transferred to %s#%d", ctx.repo.full_name, number, *issue.moved_to
        )
        there = ctx.moved_to(*issue.moved_to)
        if there is not None:
            handle_issue(there, issue.moved_to[1], force, explain)
        return
    if issue.is_pull_request:
        out.skipped = "this issue is a pull request"
        return
    if not force and (config.ignores(issue.author) or issue.author == ctx.bot):
        out.skipped = f"author {issue.author!r} is ignored"
        return
    choice = choose(settings, config, "issues")
    chat = ctx.deps.chat(choice.model)
    evidence = extract_signals(issue.title, issue.body).model_dump(mode="json")
    options = IssueOptions(
        votes=choice.votes, cost_cap_usd=choice.cost_cap_usd, allow_unpriced=choice.allow_unpriced
    )
    engine_issue = Issue(title=issue.title, body=issue.body, repo=ctx.repo.full_name, number=number)
    prompts = build_issue_prompts(engine_issue, options, evidence)  # once: hashed, then voted on
    key = input_hash(prompts, chat.name, options.votes)
    if ctx.unchanged("issue", number, key, force):
        return
    out.warnings += choice.warnings
    result = calibrated(ctx, assess_issue(engine_issue, chat, options, evidence, prompts))
    score = result.clarity.score or 0
    actionable = score >= 2 or result.clarity.controversial or bool(result.questions)
    state = ctx.publish_assessment(number, issue.labels, result, actionable, explain)
    log.info(
        "issue %s#%d clarity=%s votes=%s labels+%s -%s comment=%s",
        ctx.repo.full_name,
        number,
        result.clarity.score,
        state.votes["clarity"],
        out.labels_added,
        out.labels_removed,
        out.comment_action,
    )


def calibrated(ctx: RunContext, result: IssueAssessment) -> IssueAssessment:
    """The repository's calibration applied to clarity, and said in the comment."""
    lookup = ctx.deps.calibration_for
    if not ctx.config.calibration or lookup is None or not result.clarity.votes:
        return result
    calibration = lookup(ctx.repo.full_name)
    if calibration is None:
        return result
    worst = max(vote.score for vote in result.clarity.votes)
    ctx.outcome.warnings.append(calibration.explain())
    clarity = result.clarity.model_copy(update={"score": worst})
    return result.model_copy(update={"clarity": clarity})

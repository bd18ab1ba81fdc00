"""issues opened / edited / reopened (and `/spice relabel` on an issue) -> the issue pipeline."""

from __future__ import annotations

import logging

from app.github.comment_render import issue_view, render_view
from app.github.labels import (
    CandidateLabel,
    ClarityLabel,
    LabelPlan,
    TriageLabel,
    label_name,
    scored_label,
)
from app.github.sticky_comment import StickyState
from app.github.untrusted_text import neutralise
from app.handlers.run_context import RunContext, input_key
from app.model_policy import choose
from spice_engine import __version__
from spice_engine.issue_clarity import PROMPT_ID, IssueOptions, assess_issue
from spice_engine.issue_signals.extract import extract_signals
from spice_engine.models import CandidateSolution, Issue, IssueAssessment
from spice_engine.prompts import latest_version

log = logging.getLogger(__name__)
HAS_CANDIDATE = (CandidateSolution.COMPLETE, CandidateSolution.EXACT_PATCH)


def issue_labels(a: IssueAssessment, prefix: str) -> LabelPlan:
    """Labels from scores and enums only: nothing the model wrote can name a label."""
    clarity = scored_label("clarity", a.clarity.score)
    candidate = a.candidate_solution in HAS_CANDIDATE and not a.candidate_misleading
    return LabelPlan(
        desired={
            ClarityLabel.__name__: label_name(clarity, prefix) if clarity else None,
            CandidateLabel.__name__: (
                label_name(CandidateLabel.HAS_CANDIDATE, prefix) if candidate else None
            ),
            TriageLabel.__name__: (
                label_name(TriageLabel.NEEDS_HUMAN, prefix) if a.clarity.controversial else None
            ),
        }
    )


def handle_issue(ctx: RunContext, number: int, force: bool = False, explain: bool = False) -> None:
    """Assess the issue's LATEST text (fetched, not taken from the payload) and publish."""
    out, settings, config = ctx.outcome, ctx.deps.settings, ctx.config
    out.pipeline = "issues"
    if not config.pipelines.issues:
        out.skipped = "the issue pipeline is disabled in .github/spice.yml"
        return
    issue = ctx.repo.get_issue(number)
    if issue.is_pull_request:
        out.skipped = "this issue is a pull request"
        return
    if not force and (config.ignores(issue.author) or issue.author == ctx.bot):
        out.skipped = f"author {issue.author!r} is ignored"
        return
    choice = choose(settings, config, "issues")
    model, votes = choice.model, choice.votes
    version = latest_version(PROMPT_ID)
    key = input_key("issue", issue.title, issue.body, model, votes, version, __version__)
    if ctx.unchanged("issue", number, key, force):
        return
    evidence = extract_signals(issue.title, issue.body).model_dump(mode="json")
    out.warnings += choice.warnings
    options = IssueOptions(
        votes=votes, cost_cap_usd=choice.cost_cap_usd, allow_unpriced=choice.allow_unpriced
    )
    engine_issue = Issue(title=issue.title, body=issue.body, repo=ctx.repo.full_name, number=number)
    result = assess_issue(engine_issue, ctx.deps.chat(model), options, evidence)
    out.assessments.append(result.model_dump(mode="json", exclude={"issue"}) | {"input_key": key})
    plan = issue_labels(result, config.label_prefix)
    state = StickyState(
        input_hash=key,
        pipeline="issues",
        model=result.model,
        prompt_version=f"{result.prompt.id}/v{result.prompt.version}",
        votes={"clarity": [v.score for v in result.clarity.votes]},
        labels=[name for name in plan.desired.values() if name],
    )
    view = issue_view(result, config.label_prefix, ctx.deps.secrets(), expanded=explain)
    view.summary += [neutralise(w, 200) for w in out.warnings]
    body = render_view(view, state, "assessment")
    score = result.clarity.score or 0
    actionable = score >= 2 or result.clarity.controversial or bool(result.questions)
    ctx.publish(number, issue.labels, plan, body, actionable, force_comment=explain)
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

"""A pull request's test strength where the reviewer looks: a check run started before its tests
run (in progress while they do) and completed with the result, its notes at the shown
survivors' lines. What is shown leaves out the kinds of mutant maintainers answered "not
useful" in the repository; what was shown is recorded, so an answer can name it by id."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from github import GithubException

from app.github.check_run_render import CHECK_NAME, check_output, conclusion, output_key
from app.github.check_runs import CheckRunOutput, CheckRunWrite
from app.github.models import PullData
from app.github.retries import is_transient
from app.github.untrusted_text import neutralise
from app.handlers.pr_execution import pr_strength, why_not
from app.handlers.run_context import RunContext
from app.shown_survivors import ShownSurvivors, SurvivorKey, shown_survivors
from spice_engine.pr.diff_split import SplitRules
from spice_engine.pr.models import PullRequest
from spice_engine.strength.catching import TestWriter
from spice_engine.strength.result import TestStrength

log = logging.getLogger(__name__)
NO_CHECKS = (
    "no test-strength check run: GitHub refused it ({status}); the App needs the "
    "`checks: write` permission, which the installation's owner must accept"
)


@dataclass(frozen=True)
class Measured:
    strength: TestStrength | None
    suppressed: frozenset[SurvivorKey]
    shown: ShownSurvivors


def measure_with_check(
    ctx: RunContext,
    pr: PullData,
    engine_pr: PullRequest,
    rules: SplitRules,
    warnings: list[str],
    writer: TestWriter | None = None,
) -> Measured:
    """`pr_strength`, inside the pull request's check run when its tests are executed."""
    check = _start(ctx, pr, warnings) if why_not(ctx, pr) is None else None
    said = len(warnings)
    strength = pr_strength(ctx, pr, engine_pr, rules, warnings, writer)
    feedback = ctx.deps.survivor_feedback
    suppressed = feedback.suppressed(ctx.repo.full_name) if feedback and strength else frozenset()
    shown = shown_survivors(strength, suppressed)
    if check is not None:
        why = "; ".join(warnings[said:]) or "the pull request has no fix and tests to measure"
        _finish(ctx, pr, check, strength, shown, why, warnings)
    if feedback is not None and not ctx.dry_run and shown.shown:
        feedback.record_shown(ctx.repo.full_name, pr.number, shown.shown)
    return Measured(strength, suppressed, shown)


def _refused(exc: GithubException, warnings: list[str]) -> None:
    """A check run GitHub will not take is said beside the result, not a failed job."""
    if is_transient(exc) or exc.status not in (403, 404, 422):
        raise exc
    log.warning("check run refused: %s %s", exc.status, exc.data)
    warnings.append(NO_CHECKS.format(status=exc.status))


def _start(ctx: RunContext, pr: PullData, warnings: list[str]) -> int | None:
    """Our unfinished run on the head (one cut off by a crash or a retry), else a new one."""
    if ctx.dry_run:
        return None
    try:
        unfinished = [
            r for r in ctx.repo.check_runs(pr.head_sha, CHECK_NAME) if r.status != "completed"
        ]
        if unfinished:
            return unfinished[0].id
        started = CheckRunWrite(
            name=CHECK_NAME,
            head_sha=pr.head_sha,
            status="in_progress",
            started_at=datetime.now(UTC).replace(microsecond=0),
        )
        return ctx.repo.create_check_run(started)
    except GithubException as exc:
        _refused(exc, warnings)
        return None


def _finish(
    ctx: RunContext,
    pr: PullData,
    check: int,
    strength: TestStrength | None,
    shown: ShownSurvivors,
    why: str,
    warnings: list[str],
) -> None:
    """Complete the run: the result, or `why` there is none (no fix to mutate, no test to
    judge by, no clone)."""
    secrets = ctx.deps.secrets()
    if strength is None:
        output = CheckRunOutput(title="Not measured", summary=neutralise(why, 2000, secrets))
    else:
        output = check_output(strength, shown, secrets)
    measured = strength is not None and strength.status in ("measured", "no_mutants")
    # Nothing measured is no verdict either way: never a pass, never a block.
    chosen = (
        conclusion(shown, ctx.deps.settings.strength_check_conclusion) if measured else "neutral"
    )
    done = CheckRunWrite(
        name=CHECK_NAME,
        head_sha=pr.head_sha,
        status="completed",
        conclusion=chosen,
        completed_at=datetime.now(UTC).replace(microsecond=0),
        external_id=output_key(output, chosen),
        output=output,
    )
    try:
        ctx.repo.update_check_run(check, done)
    except GithubException as exc:
        _refused(exc, warnings)
        return
    notes = len(output.annotations)
    log.info(
        "check run %d on %s#%d: %s, %d note(s)", check, ctx.repo.full_name, pr.number, chosen, notes
    )

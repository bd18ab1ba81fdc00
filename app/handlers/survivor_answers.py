"""`/spice not-useful <id>`: a maintainer's answer that a shown survivor was not useful. Kept
per repository; that kind of mutant (operator × place) is not shown there again."""

from __future__ import annotations

import logging

from app.handlers.outcome import Done, Skipped
from app.handlers.run_context import RunContext
from app.redaction import redacted_excerpt
from app.shown_survivors import SURVIVOR_ID

log = logging.getLogger(__name__)


def record_not_useful(ctx: RunContext, number: int, login: str, args: str) -> Done:
    """Store the answer (the caller checked the author may command)."""
    given = args.strip().split(" ", 1)[0].lower()
    if not SURVIVOR_ID.match(given):
        shown = redacted_excerpt(args, head=40, secrets=ctx.deps.secrets(), marker="")
        raise Skipped(f"not-useful needs a survivor id of 8 hex digits, not {shown!r}")
    feedback = ctx.deps.survivor_feedback
    if feedback is None:
        raise Skipped("no store of results to keep the answer in")
    if ctx.dry_run:
        return ctx.done("not_useful", number)
    if not feedback.not_useful(ctx.repo.full_name, number, given, login):
        raise Skipped(f"no survivor {given} was shown in {ctx.repo.full_name}")
    log.info("%s: survivor %s answered not useful by %s", ctx.repo.full_name, given, login)
    return ctx.done("not_useful", number)

"""The App's live hook: a merged PR (`pull_request` closed with merged=true) records its instance."""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from app.harvest.fanout import ContextFactory, settings_contexts
from app.harvest.label import make_labeller
from app.harvest.runner import HarvestContext, Outcome, harvest_one
from app.harvest.source import PullSummary
from app.settings import Settings
from spice_engine.pr.diff_split import SplitRules

if TYPE_CHECKING:
    from app.handlers.run_context import RunContext

log = logging.getLogger(__name__)
_CONTEXTS: dict[int, ContextFactory] = {}
_LOCK = threading.Lock()


def pull_from_payload(payload: dict[str, Any]) -> PullSummary:
    pull = payload["pull_request"]
    return PullSummary(
        number=int(pull["number"]),
        title=pull.get("title") or "",
        body=pull.get("body") or "",
        created_at=pull["created_at"],
        merged_at=pull.get("merged_at"),
        base_sha=pull["base"]["sha"],
    )


def record_merge(ctx: HarvestContext, payload: dict[str, Any], label: bool = True) -> Outcome:
    """Build, label and store the merged PR's instance (idempotent: redeliveries are free)."""
    repo = payload["repository"]["full_name"]
    outcome = harvest_one(ctx, repo, pull_from_payload(payload), label)
    log.info(
        "live harvest %s#%s: %s", repo, outcome.pr_number, outcome.instance_id or outcome.skipped
    )
    return outcome


def _context(settings: Settings, payload: dict[str, Any]) -> HarvestContext:
    """The process's harvest context for the payload's installation."""
    with _LOCK:
        contexts = _CONTEXTS.setdefault(id(settings), settings_contexts(settings))
    return contexts((payload.get("installation") or {}).get("id"))


def record_merge_in_run(ctx: RunContext, payload: dict[str, Any]) -> None:
    """The `harvest` route of `app.handlers.dispatch`: record the merge on the run's outcome,
    as the repository's `.github/spice.yml` says (enabled, models, votes, cap, test paths)."""
    ctx.outcome.pipeline = "harvest"
    config = ctx.config
    if not config.pipelines.harvest:
        ctx.outcome.skipped = "harvest is disabled in .github/spice.yml"
        return
    # Only merges are routed here (app.routing).
    base = _context(ctx.deps.settings, payload)
    rules = SplitRules(test_globs=config.test_paths) if config.test_paths else base.rules
    labeller = make_labeller(ctx.deps.settings, config=config) if base.labeller else None
    outcome = record_merge(replace(base, rules=rules, labeller=labeller), payload)
    if outcome.instance_id is None:
        ctx.outcome.skipped = f"harvest: {outcome.skipped}"

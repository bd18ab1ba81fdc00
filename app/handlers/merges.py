"""A merged pull request (`pull_request` closed, merged): its task instance is harvested."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.handlers.outcome import Done, Skipped
from app.handlers.run_context import RunContext
from app.harvest.label import make_labeller
from app.harvest.live import record_merge
from spice_engine.pr.diff_split import SplitRules


def handle_merge(ctx: RunContext, payload: dict[str, Any]) -> Done:
    """Harvest the merge as the repository's `.github/spice.yml` says (enabled, models,
    votes, cap, test paths). Only merges are routed here (app.routing)."""
    config = ctx.config
    if not config.pipelines.harvest:
        raise Skipped("harvest is disabled in .github/spice.yml")
    contexts = ctx.deps.harvest_contexts
    assert contexts is not None  # set when the deps are built
    base = contexts((payload.get("installation") or {}).get("id"))
    rules = SplitRules(test_globs=config.test_paths) if config.test_paths else base.rules
    labeller = make_labeller(ctx.deps.settings, config=config) if base.labeller else None
    live = replace(base, rules=rules, labeller=labeller, on_saved=ctx.deps.on_instance_saved)
    outcome = record_merge(live, payload)
    if outcome.instance_id is None:
        raise Skipped(f"harvest: {outcome.skipped}")
    return ctx.done("harvest")

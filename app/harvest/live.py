"""The App's live hook: a merged PR (`pull_request` closed with merged=true) records its instance."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from app.harvest.fanout import ContextFactory, settings_contexts
from app.harvest.runner import HarvestContext, Outcome, harvest_one
from app.harvest.source import PullSummary
from app.settings import Settings

if TYPE_CHECKING:
    from app.handlers.run_context import RunContext

log = logging.getLogger(__name__)
_CONTEXTS: dict[int, ContextFactory] = {}
_LOCK = threading.Lock()


def is_merge(event: str, payload: dict[str, Any]) -> bool:
    pull = payload.get("pull_request") or {}
    return (
        event == "pull_request" and payload.get("action") == "closed" and bool(pull.get("merged"))
    )


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


def record_merge_event(settings: Settings, event: str, payload: dict[str, Any]) -> Outcome | None:
    """The dispatch hook: None unless this delivery is a merge."""
    if not is_merge(event, payload):
        return None
    with _LOCK:
        contexts = _CONTEXTS.setdefault(id(settings), settings_contexts(settings))
    installation = (payload.get("installation") or {}).get("id")
    return record_merge(contexts(installation), payload)


def record_merge_in_run(ctx: RunContext, payload: dict[str, Any]) -> None:
    """The `harvest` route of `app.handlers.dispatch`: record the merge on the run's outcome."""
    outcome = record_merge_event(ctx.deps.settings, "pull_request", payload)
    ctx.outcome.pipeline = "harvest"
    if outcome is None or outcome.instance_id is None:
        ctx.outcome.skipped = f"harvest: {outcome.skipped if outcome else 'not merged'}"

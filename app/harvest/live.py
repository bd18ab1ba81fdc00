"""The App's live hook: a merged PR (`pull_request` closed with merged=true) records its instance."""

from __future__ import annotations

import logging
from typing import Any

from app.harvest.runner import HarvestContext, Outcome, harvest_one
from app.harvest.source import PullSummary

log = logging.getLogger(__name__)


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

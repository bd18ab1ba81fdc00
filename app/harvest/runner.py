"""Harvest a repository: list merged PRs from the cursor, handle each, move the cursor on."""

from __future__ import annotations

import logging
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel

from app.harvest.build import Built, build_instance
from app.harvest.label import Labeller
from app.harvest.source import HarvestSource, PullSummary
from app.harvest.store import Cursor, HarvestStore
from spice_engine.pr.diff_split import SplitRules

log = logging.getLogger(__name__)


@dataclass
class HarvestContext:
    """Everything one PR's harvest needs; shared by the threads of a worker."""

    source: HarvestSource
    store: HarvestStore
    labeller: Labeller | None = None
    rules: SplitRules | None = None
    on_saved: Callable[[str], object] | None = None
    """Called with each stored instance's id (the worker enqueues its validation)."""


class Outcome(BaseModel):
    pr_number: int
    instance_id: str | None = None
    skipped: str | None = None
    labelled: bool = False
    label_failed: bool = False
    """Labelling was asked for and did not complete (the instance is kept; a rerun labels it)."""
    enqueued: bool = False
    """Handed to the queue; a worker will build it."""


def harvest_one(ctx: HarvestContext, repo: str, pull: PullSummary, label: bool = True) -> Outcome:
    """Build, label and store one PR's instance; safe to run twice or on two machines."""
    result = build_instance(ctx.source, repo, pull, ctx.rules)
    if not isinstance(result, Built):
        return Outcome(pr_number=pull.number, skipped=result.reason)
    iid = result.instance.instance_id
    labels = None
    # A PR already labelled (an earlier run, another worker) is not paid for twice.
    if label and ctx.labeller is not None and not ctx.store.is_labelled(iid):
        labels = ctx.labeller(result.instance.model_dump(), result.issues)
    ctx.store.save(result, labels)
    if ctx.on_saved is not None:
        ctx.on_saved(iid)
    return Outcome(
        pr_number=pull.number,
        instance_id=iid,
        labelled=labels is not None and labels.labelled,
        label_failed=labels is not None and not labels.labelled,
    )


Dispatch = Callable[[PullSummary], "Future[Outcome] | None"]
"""Hands one PR to whoever builds it: a local thread (a future) or the queue (None)."""


@dataclass
class HarvestReport:
    repo: str
    processed: int = 0
    """Merged PRs handed out in this run."""
    kept: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    enqueued: int = 0
    label_failed: int = 0
    """Kept instances whose labelling failed (a rerun labels them)."""
    cursor: Cursor = field(default_factory=Cursor)

    def count(self, outcome: Outcome) -> None:
        if outcome.instance_id:
            self.kept.append(outcome.instance_id)
            self.label_failed += outcome.label_failed
        elif outcome.skipped:
            self.skipped[outcome.skipped] += 1

    def as_dict(self) -> dict[str, object]:
        return {
            "repo": self.repo,
            "processed": self.processed,
            "kept": len(self.kept),
            "enqueued": self.enqueued,
            "label_failed": self.label_failed,
            "skipped": dict(self.skipped),
            "cursor": {"page": self.cursor.page, "last_number": self.cursor.last_number},
        }


def _merged_since(pull: PullSummary, since: datetime | None) -> bool:
    if not pull.merged_at:
        return False
    if since is None:
        return True
    return datetime.fromisoformat(pull.merged_at.replace("Z", "+00:00")) >= since


def _pending(source: HarvestSource, repo: str, cursor: Cursor) -> Iterator[PullSummary]:
    for pull in source.closed_pulls(repo, cursor.page):
        if pull.number > cursor.last_number:
            yield pull


def harvest_repo(
    store: HarvestStore,
    source: HarvestSource,
    repo: str,
    dispatch: Dispatch,
    since: datetime | None = None,
    max_prs: int | None = None,
    window: int = 8,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> HarvestReport:
    """Walk the closed-PR listing from the stored cursor, in order.

    The cursor only moves past a PR once it is handled (built or skipped locally, or safely
    in the queue), in listing order, so an interruption at any point loses nothing and a rerun
    repeats at most the PRs that were in flight.
    """
    cursor = store.cursor(repo)
    report = HarvestReport(repo=repo, cursor=cursor)
    # (PR, its future when built locally, whether it was handed out at all)
    inflight: deque[tuple[PullSummary, Future[Outcome] | None, bool]] = deque()

    failed = False

    def settle(limit: int) -> None:
        nonlocal cursor, failed
        while len(inflight) > limit and not failed:
            pull, future, handed = inflight[0]
            if future is not None:
                try:
                    outcome = future.result()
                except BaseException:
                    failed = True  # the cursor must stay before this PR
                    raise
                report.count(outcome)
                if on_outcome:
                    on_outcome(outcome)
            elif on_outcome and handed:
                on_outcome(Outcome(pr_number=pull.number, enqueued=True))
            inflight.popleft()
            cursor = Cursor(pull.page, pull.number, cursor.processed + 1)
            store.advance(repo, cursor)
            report.cursor = cursor

    try:
        for pull in _pending(source, repo, cursor):
            if max_prs is not None and report.processed >= max_prs:
                break
            inflight.append(_hand_out(pull, since, dispatch, report))
            settle(window)
    finally:
        # Settle what was handed out even when interrupted, so the cursor reflects it.
        if not failed:
            settle(0)
    return report


def _hand_out(
    pull: PullSummary, since: datetime | None, dispatch: Dispatch, report: HarvestReport
) -> tuple[PullSummary, Future[Outcome] | None, bool]:
    """Dispatch a merged PR (a future when built here, None when queued); count the rest."""
    if not _merged_since(pull, since):
        report.skipped["not_merged" if not pull.merged_at else "before_since"] += 1
        return pull, None, False
    report.processed += 1
    future = dispatch(pull)
    report.enqueued += future is None
    return pull, future, True


def thread_dispatch(
    ctx: HarvestContext, repo: str, pool: ThreadPoolExecutor, label: bool
) -> Dispatch:
    """Build PRs on local threads."""

    def dispatch(pull: PullSummary) -> Future[Outcome]:
        return pool.submit(harvest_one, ctx, repo, pull, label)

    return dispatch

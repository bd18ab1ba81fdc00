"""One `spice harvest` run: the store, the source and either local threads or the queue."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from app.harvest.fanout import queue_dispatch, register_harvest_task, settings_contexts
from app.harvest.label import make_labeller
from app.harvest.local_history import open_local
from app.harvest.runner import HarvestContext, HarvestReport, Outcome, harvest_repo, thread_dispatch
from app.harvest.source import HarvestSource, source_from_settings
from app.harvest.store import HarvestStore
from app.queue.factory import make_huey
from app.settings import Settings
from app.store.opening import open_store


@dataclass(frozen=True)
class HarvestRequest:
    repo: str
    since: datetime | None = None
    max_prs: int | None = None
    label: bool = True
    workers: int = 4
    """PRs built concurrently in this process."""
    enqueue: bool = False
    """Hand each PR to the queue for `spice worker` processes instead."""
    restart: bool = False
    installation_id: int | None = None
    requests_per_hour: float | None = None
    local: Path | None = None
    """A repository, mirror or bundle to read merged pulls from, instead of GitHub."""


def run_harvest(
    settings: Settings, request: HarvestRequest, on_outcome: Callable[[Outcome], None]
) -> HarvestReport:
    """Walk the repository's merged PRs from the stored cursor; raises ValueError on bad
    credentials settings before anything is asked of GitHub."""
    source: HarvestSource
    if request.local is not None:
        if request.enqueue:
            raise ValueError("--from reads local history here: it cannot --enqueue to workers")
        source = open_local(request.local, settings.data_dir.resolve() / "repos")
    else:
        source = source_from_settings(settings, request.installation_id, request.requests_per_hour)
    store = HarvestStore(open_store(settings).sessions)
    if request.restart:
        store.restart(request.repo)
    repo, since, max_prs = request.repo, request.since, request.max_prs
    if request.enqueue:
        task = register_harvest_task(make_huey(settings), settings_contexts(settings))
        dispatch = queue_dispatch(task, repo, request.label, request.installation_id)
        return harvest_repo(store, source, repo, dispatch, since, max_prs, on_outcome=on_outcome)
    labeller = make_labeller(settings) if request.label else None
    ctx = HarvestContext(source=source, store=store, labeller=labeller)
    with ThreadPoolExecutor(request.workers, thread_name_prefix="harvest") as pool:
        return harvest_repo(
            store,
            source,
            repo,
            thread_dispatch(ctx, repo, pool, request.label),
            since,
            max_prs,
            window=2 * request.workers,
            on_outcome=on_outcome,
        )

"""Harvest fans out per PR over the huey queue: any worker on any machine may build any PR."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from huey import Huey
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.harvest.label import make_labeller
from app.harvest.runner import Dispatch, HarvestContext, harvest_one
from app.harvest.source import PullSummary, source_from_settings
from app.harvest.store import HarvestStore
from app.settings import Settings
from app.store.engine import session_factory
from app.store.opening import open_store

TASK_NAME = "harvest_pr"
ContextFactory = Callable[[int | None], HarvestContext]
"""Installation id -> the context a worker builds PRs with."""


def settings_contexts(
    settings: Settings,
    on_saved: Callable[[str], object] | None = None,
    engine: Engine | None = None,
) -> ContextFactory:
    """Contexts from the settings, built once per installation and process; `on_saved` is
    called with each stored instance's id (to enqueue its validation). `engine`: the
    process's own (else one is made on first use)."""
    cache: dict[int | None, HarvestContext] = {}
    lock = threading.Lock()

    @functools.cache
    def sessions() -> sessionmaker[Session]:
        # The process's own store, else one opened here (the Action: no worker migrated it).
        return session_factory(engine) if engine is not None else open_store(settings).sessions

    def context(installation_id: int | None) -> HarvestContext:
        with lock:
            if installation_id not in cache:
                cache[installation_id] = HarvestContext(
                    source=source_from_settings(settings, installation_id),
                    store=HarvestStore(sessions()),
                    labeller=make_labeller(settings),
                    on_saved=on_saved,
                )
            return cache[installation_id]

    return context


def register_harvest_task(
    huey: Huey, contexts: ContextFactory, retries: int = 3, retry_delay_s: float = 10.0
) -> Callable[..., Any]:
    """Register `harvest_pr` on `huey`; the enqueuing side and every worker must call this."""

    @huey.task(retries=retries, retry_delay=retry_delay_s, name=TASK_NAME)
    def harvest_pr(
        repo: str, pull: dict[str, Any], label: bool, installation_id: int | None
    ) -> dict[str, Any]:
        ctx = contexts(installation_id)
        outcome = harvest_one(ctx, repo, PullSummary.model_validate(pull), label)
        return outcome.model_dump()

    return harvest_pr


def queue_dispatch(
    task: Callable[..., Any], repo: str, label: bool, installation_id: int | None = None
) -> Dispatch:
    """Hand each PR to the queue; the queue is durable, so the cursor may move on at once."""

    def dispatch(pull: PullSummary) -> None:
        task(repo, pull.model_dump(), label, installation_id)
        return None

    return dispatch

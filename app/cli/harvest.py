"""`spice harvest owner/repo`: merged PRs that fix issues and change tests -> labelled instances."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Annotated

import typer

from app.cli.common import (
    ApiBaseOption,
    ModelOption,
    emit_json,
    fail,
    settings_with,
    setup_logging,
)

if TYPE_CHECKING:
    from app.harvest.runner import Outcome


def harvest(
    repo: Annotated[str, typer.Argument(help="owner/name of the repository.")],
    since: Annotated[
        str | None, typer.Option(help="Only PRs merged on or after this date (ISO 8601).")
    ] = None,
    max_prs: Annotated[
        int | None, typer.Option("--max", min=1, help="Stop after this many merged PRs.")
    ] = None,
    no_label: Annotated[
        bool, typer.Option("--no-label", help="Store instances unlabelled.")
    ] = False,
    workers: Annotated[int, typer.Option(min=1, help="PRs built concurrently here.")] = 4,
    enqueue: Annotated[
        bool,
        typer.Option("--enqueue", help="Hand each PR to the queue for `spice worker` processes."),
    ] = False,
    restart: Annotated[
        bool, typer.Option("--restart", help="Forget the stored cursor; list from the start.")
    ] = False,
    installation_id: Annotated[
        int | None, typer.Option(help="App installation (App mode).")
    ] = None,
    requests_per_hour: Annotated[
        float | None, typer.Option(min=1, help="GitHub request budget of this installation.")
    ] = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: Annotated[int | None, typer.Option(min=1, max=15, help="Votes per dimension.")] = None,
) -> None:
    """Harvest merged PRs into SWE-bench-style task instances; a rerun resumes where it stopped."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    from app.harvest.decontam import parse_date
    from app.harvest.fanout import queue_dispatch, register_harvest_task, settings_contexts
    from app.harvest.label import make_labeller
    from app.harvest.runner import HarvestContext, harvest_repo, thread_dispatch
    from app.harvest.source import source_from_settings
    from app.harvest.store import HarvestStore
    from app.queue.factory import make_huey
    from app.store.engine import database_url, make_engine, session_factory
    from app.store.migrate import upgrade_to_head

    if "/" not in repo:
        fail(f"expected owner/name, got {repo!r}")
    settings = settings_with(model=model, api_base=api_base, votes=votes)
    setup_logging(settings.log_level, settings.log_format)
    try:
        cutoff = parse_date(since) if since else None
        source = source_from_settings(settings, installation_id, requests_per_hour)
    except ValueError as exc:
        fail(str(exc))
    engine = make_engine(database_url(settings))
    upgrade_to_head(engine)
    store = HarvestStore(session_factory(engine))
    if restart:
        store.restart(repo)
    label = not no_label
    bar = tqdm(total=max_prs, unit="PR", desc=repo, disable=None, dynamic_ncols=True)
    kept = 0

    def progress(outcome: Outcome) -> None:
        nonlocal kept
        kept += outcome.instance_id is not None
        bar.update(1)
        bar.set_postfix(kept=kept, refresh=False)

    try:
        if enqueue:
            task = register_harvest_task(make_huey(settings), settings_contexts(settings))
            dispatch = queue_dispatch(task, repo, label, installation_id)
            report = harvest_repo(
                store, source, repo, dispatch, cutoff, max_prs, on_outcome=progress
            )
        else:
            labeller = make_labeller(settings) if label else None
            ctx = HarvestContext(source=source, store=store, labeller=labeller)
            with ThreadPoolExecutor(workers, thread_name_prefix="harvest") as pool:
                report = harvest_repo(
                    store,
                    source,
                    repo,
                    thread_dispatch(ctx, repo, pool, label),
                    cutoff,
                    max_prs,
                    window=2 * workers,
                    on_outcome=progress,
                )
    finally:
        bar.close()
    emit_json(report.as_dict())
    if report.kept and report.label_failed == len(report.kept):
        fail(f"labelling failed for all {report.label_failed} kept instances (see the log above)")

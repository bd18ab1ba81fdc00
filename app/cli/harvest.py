"""`spice harvest owner/repo`: merged PRs that fix issues and change tests -> labelled instances."""

from __future__ import annotations

import re
from pathlib import Path
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


RepoArg = Annotated[str, typer.Argument(help="owner/name of the repository.")]
SinceOption = Annotated[
    str | None, typer.Option(help="Only PRs merged on or after this date (ISO 8601).")
]
MaxOption = Annotated[
    int | None, typer.Option("--max", min=1, help="Stop after this many merged PRs.")
]
NoLabelFlag = Annotated[bool, typer.Option("--no-label", help="Store instances unlabelled.")]
WorkersOption = Annotated[int, typer.Option(min=1, help="PRs built concurrently here.")]
EnqueueFlag = Annotated[
    bool, typer.Option("--enqueue", help="Hand each PR to the queue for `spice worker` processes.")
]
RestartFlag = Annotated[
    bool, typer.Option("--restart", help="Forget the stored cursor; list from the start.")
]
InstallationOption = Annotated[int | None, typer.Option(help="App installation (App mode).")]
BudgetOption = Annotated[
    float | None, typer.Option(min=1, help="GitHub request budget of this installation.")
]
VotesOption = Annotated[int | None, typer.Option(min=1, max=15, help="Votes per dimension.")]
FromOption = Annotated[
    Path | None,
    typer.Option(
        "--from", help="Read merged pulls from this local repository, mirror or bundle (no GitHub)."
    ),
]


OWNER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}")
"""GitHub's owner (letters, digits, hyphens) and repository name (also `.` and `_`)."""


def repo_name_problem(repo: str) -> str | None:
    """Why `repo` is not an `owner/name` GitHub would know, said before any request."""
    if OWNER_NAME.fullmatch(repo):
        return None
    found = re.search(r"github\.com[/:]([^/\s]+/[^/\s]+?)(?:\.git)?/?$", repo)
    if found and OWNER_NAME.fullmatch(found.group(1)):
        return f"expected owner/name, not a URL: try `spice harvest {found.group(1)}`"
    return f"expected owner/name (e.g. octo-org/widgets), got {repo!r}"


def pr_line(outcome: Outcome) -> str:
    what = outcome.instance_id or outcome.skipped or ("enqueued" if outcome.enqueued else "done")
    return f"#{outcome.pr_number} {what}"


def harvest(
    repo: RepoArg,
    since: SinceOption = None,
    max_prs: MaxOption = None,
    no_label: NoLabelFlag = False,
    workers: WorkersOption = 4,
    enqueue: EnqueueFlag = False,
    restart: RestartFlag = False,
    installation_id: InstallationOption = None,
    requests_per_hour: BudgetOption = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: VotesOption = None,
    local: FromOption = None,
) -> None:
    """Harvest merged PRs into SWE-bench-style task instances; a rerun resumes where it stopped."""
    if problem := repo_name_problem(repo):
        fail(problem)  # before the seconds the harvest's imports take
    from tqdm import tqdm  # type: ignore[import-untyped]

    from app.cli.errors import rerun_hint
    from app.github.retries import RetryAfterTooLong
    from app.harvest.command import HarvestRequest, run_harvest
    from app.harvest.decontam import parse_date
    from spice_engine.errors import InputError
    from spice_engine.validate.gitwork import GitError

    settings = settings_with(model=model, api_base=api_base, votes=votes)
    setup_logging(settings.log_level, settings.log_format)
    try:
        request = HarvestRequest(
            repo=repo,
            since=parse_date(since) if since else None,
            max_prs=max_prs,
            label=not no_label,
            workers=workers,
            enqueue=enqueue,
            restart=restart,
            installation_id=installation_id,
            requests_per_hour=requests_per_hour,
            local=local,
        )
    except ValueError as exc:
        fail(str(exc))
    # How many closed PRs there are is unknown until the listing ends: the bar counts them
    # and names the cap, rather than a fraction of the cap that looks stalled on a small repo.
    desc = f"{repo} (at most {max_prs})"
    bar = tqdm(total=None, unit="PR", desc=desc, disable=None, dynamic_ncols=True)
    kept = seen = 0

    def progress(outcome: Outcome) -> None:
        nonlocal kept, seen
        seen += 1  # a disabled bar counts nothing: this is the line's number
        kept += outcome.instance_id is not None
        bar.update(1)
        bar.set_postfix(kept=kept, refresh=False)
        if bar.disable:  # not a terminal (CI, nohup): a line per PR instead of nothing
            typer.echo(f"harvest: [{seen}] {pr_line(outcome)}", err=True)

    try:
        report = run_harvest(settings, request, progress)
    except (ValueError, InputError, GitError) as exc:
        fail(str(exc))
    except RetryAfterTooLong as exc:
        fail(f"{rerun_hint(exc.kind, exc.wait_s)}: it resumes where this run stopped")
    finally:
        bar.close()
    emit_json(report.as_dict())
    if report.kept and report.label_failed == len(report.kept):
        fail(f"labelling failed for all {report.label_failed} kept instances (see the log above)")

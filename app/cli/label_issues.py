"""`spice label-issues`: clarity and candidate-solution labels for a file of issues."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import ApiBaseOption, ModelOption, VotesOption, fail, settings_with

InputArg = Annotated[
    Path, typer.Argument(help="JSONL: SWE-bench instances or GitHub issues, one a line.")
]
OutOption = Annotated[
    Path,
    typer.Option(
        "--out", "-o", help="JSONL to append results to (resumes: ids there are skipped)."
    ),
]
WorkersOption = Annotated[int, typer.Option(min=1, max=32, help="Issues labelled at once.")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="Only the first N issues.")]


def label_issues(
    file: InputArg,
    out: OutOption,
    workers: WorkersOption = 4,
    limit: LimitOption = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: VotesOption = None,
) -> None:
    """Label a JSONL file of issues for clarity and candidate solution, concurrently."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    from app.cli.render import assessment_json
    from app.logging_setup import configure_logging
    from spice_engine.batch import run_all
    from spice_engine.errors import SpiceError
    from spice_engine.issue_clarity import IssueOptions, assess_issue
    from spice_engine.llm.litellm_chat import LiteLLMChat

    settings = settings_with(model=model, api_base=api_base, votes=votes)
    configure_logging("WARNING", settings.log_format)  # the bar and the summary say enough
    todo = _todo(file, out, limit)
    chat = LiteLLMChat(settings.model_config_for())
    try:
        chat.check_model()  # a mistyped model fails here, once, not once per issue
    except SpiceError as exc:
        fail(str(exc))
    options = IssueOptions(votes=settings.votes, cost_cap_usd=settings.cost_cap_usd)
    failed: list[str] = []
    labelled = 0
    bar = tqdm(total=len(todo), unit="issue", desc="label", disable=None, dynamic_ncols=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with out.open("a", encoding="utf-8") as sink, bar:
            for done in run_all(todo, lambda row: assess_issue(row[1], chat, options), workers):
                iid, _ = done.item
                if done.result is None:
                    failed.append(iid)
                    typer.echo(f"{iid}: {done.error}", err=True)
                else:
                    line = json.dumps({"instance_id": iid, **assessment_json(done.result)})
                    sink.write(line + "\n")
                    sink.flush()  # an interrupted run keeps what it paid for
                    labelled += 1
                bar.update(1)
    except KeyboardInterrupt:
        left = len(todo) - labelled
        typer.echo(
            f"\ninterrupted: {labelled} of {len(todo)} issues labelled into {out} and kept; "
            f"run the same command again to label the other {left} (ids in {out} are skipped)",
            err=True,
        )
        raise typer.Exit(130) from None
    typer.echo(f"labelled {len(todo) - len(failed)} of {len(todo)} issues into {out}", err=True)
    if todo and len(failed) == len(todo):
        fail(f"every issue failed (first: {failed[0]})")


def _todo(file: Path, out: Path, limit: int | None) -> list[tuple[str, Any]]:
    """(id, Issue) for each input line not labelled in `out` yet."""
    from app.cli.issue_input import issue_from_mapping
    from spice_engine.errors import InputError

    done = _labelled_ids(out)
    todo: list[tuple[str, Any]] = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            issue = issue_from_mapping(row)
        except (json.JSONDecodeError, InputError, AttributeError) as exc:
            fail(f"{file}:{n}: {getattr(exc, 'msg', exc)}")
        iid = str(row.get("instance_id") or f"{issue.repo or 'issue'}#{issue.number or n}")
        if iid not in done:
            todo.append((iid, issue))
        if limit and len(todo) >= limit:
            break
    if not todo and not done:
        fail(f"{file} holds no issue")
    return todo


def _labelled_ids(out: Path) -> set[str]:
    """Ids already in `out`; a last line an interrupted run cut off is dropped first."""
    if not out.exists():
        return set()
    text = out.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        out.write_text(text[: text.rfind("\n") + 1], encoding="utf-8")
    ids = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            ids.add(str(json.loads(line)["instance_id"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # a line cut off by an interrupted run: labelled again
    return ids

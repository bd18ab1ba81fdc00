"""`spice label-pr`: label a PR's test adequacy and difficulty from a local repository and a diff."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import (
    ApiBaseOption,
    JsonFlag,
    ModelOption,
    OutputModeOption,
    VotesOption,
    emit_json,
    fail,
    settings_with,
    setup_logging,
)
from app.cli.issue_input import issue_from_file
from app.local_repos import checkout_at
from app.settings import Settings
from spice_engine.errors import InputError, SpiceError
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.models import Issue
from spice_engine.pr.models import PRAssessment, PROptions, PullRequest
from spice_engine.pr.pipeline import assess_pr
from spice_engine.pr.repo_context import ContextOptions
from spice_engine.summary import result_lines


def read_issue(path: Path) -> Issue:
    """A GitHub issue / SWE-bench JSON file, or plain markdown whose first line is the title."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() != ".json" and not text.lstrip().startswith(("{", "[")):
        title, _, body = text.strip().partition("\n")
        return Issue(title=title.lstrip("# ").strip(), body=body)
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    return issue_from_file(path)


def pr_options(settings: Settings, max_prompt_tokens: int | None) -> PROptions:
    context = ContextOptions(max_prompt_tokens=max_prompt_tokens or 24_000)
    return PROptions(votes=settings.votes, cost_cap_usd=settings.cost_cap_usd, context=context)


def summary(result: PRAssessment) -> str:
    lines = result_lines(result)
    if result.tests is None:
        lines.insert(0, "tests: not judged")
    lines += [f"counter-example: {c}" for c in result.counter_examples]
    ctx = result.context
    lines.append(
        f"context: {ctx.mode}, prompt tokens {ctx.prompt_tokens} (cap {ctx.cap})"
        + (f", trimmed: {'; '.join(ctx.trimmed)}" if ctx.trimmed else "")
    )
    lines += [f"note: {n}" for n in result.notes]
    u = result.usage
    lines.append(f"model {result.model} · {u.input} in / {u.output} out tokens · {u.cost_text()}")
    return "\n".join(lines)


def label_pr(
    diff: Annotated[Path, typer.Option(help="The PR's unified diff (gold + tests).")],
    repo: Annotated[Path | None, typer.Option(help="Local git repository of the project.")] = None,
    base: Annotated[str | None, typer.Option(help="Base commit sha of the PR.")] = None,
    issue_file: Annotated[
        Path | None, typer.Option(help="Linked issue: JSON (GitHub / SWE-bench) or markdown.")
    ] = None,
    title: Annotated[str, typer.Option(help="PR title.")] = "",
    body_file: Annotated[Path | None, typer.Option(help="PR description file.")] = None,
    repo_name: Annotated[str | None, typer.Option(help="owner/name, for issue links.")] = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: VotesOption = None,
    output_mode: OutputModeOption = None,
    max_prompt_tokens: Annotated[
        int | None, typer.Option(help="Hard cap on prompt tokens.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Label a pull request's test adequacy (with counter-examples) and difficulty."""
    settings = settings_with(model=model, api_base=api_base, votes=votes, output_mode=output_mode)
    setup_logging("WARNING" if as_json else settings.log_level, settings.log_format)
    try:
        pr = PullRequest(
            repo=repo_name,
            title=title,
            body=body_file.read_text(encoding="utf-8") if body_file else "",
            diff=diff.read_text(encoding="utf-8", errors="surrogateescape"),
            base_sha=base,
            issues=[read_issue(issue_file)] if issue_file else [],
        )
        chat = LiteLLMChat(settings.model_config_for())
        key = repo_name or (repo.resolve().name if repo else "")
        with checkout_at(settings, repo, key, base) as path:
            result = assess_pr(pr, chat, pr_options(settings, max_prompt_tokens), repo_path=path)
    except OSError as exc:
        fail(f"cannot read input: {exc}")
    except SpiceError as exc:
        fail(str(exc))
    if as_json:
        emit_json(result)
    else:
        typer.echo(summary(result))

"""`spice label-pr`: label a PR's test adequacy and difficulty from a local repository and a diff."""

from __future__ import annotations

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
    from app.cli.issue_input import read_issue
    from app.cli.render import pr_options, pr_summary
    from app.local_repos import checkout_at
    from spice_engine.errors import SpiceError
    from spice_engine.llm.litellm_chat import LiteLLMChat
    from spice_engine.pr.models import PullRequest
    from spice_engine.pr.pipeline import assess_pr

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
        typer.echo(pr_summary(result))

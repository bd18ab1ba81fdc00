"""`spice label-issue`: label one issue's clarity and candidate solution from files."""

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


def label_issue(
    title: Annotated[str | None, typer.Option(help="Issue title.")] = None,
    body_file: Annotated[
        Path | None, typer.Option(help="File holding the issue body (markdown).")
    ] = None,
    instance: Annotated[
        Path | None, typer.Option(help="A SWE-bench instance JSON or a GitHub issue JSON.")
    ] = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: VotesOption = None,
    output_mode: OutputModeOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Label an issue for clarity (0-3) and candidate solution with k model votes."""
    from app.cli.issue_input import issue_from_file
    from app.cli.render import assessment_json, issue_summary
    from spice_engine.errors import SpiceError
    from spice_engine.issue_clarity import IssueOptions, assess_issue
    from spice_engine.llm.litellm_chat import LiteLLMChat
    from spice_engine.models import Issue

    settings = settings_with(model=model, api_base=api_base, votes=votes, output_mode=output_mode)
    setup_logging("WARNING" if as_json else settings.log_level, settings.log_format)
    try:
        if instance is not None:
            issue = issue_from_file(instance)
        elif title is not None or body_file is not None:
            body = body_file.read_text(encoding="utf-8") if body_file else ""
            issue = Issue(title=title or "", body=body)
        else:
            fail("give --title/--body-file or --instance")
        chat = LiteLLMChat(settings.model_config_for())
        options = IssueOptions(votes=settings.votes, cost_cap_usd=settings.cost_cap_usd)
        result = assess_issue(issue, chat, options)
    except OSError as exc:
        fail(f"cannot read input: {exc}")
    except SpiceError as exc:
        fail(str(exc))
    if as_json:
        emit_json(assessment_json(result))
    else:
        typer.echo(issue_summary(result))

"""`spice label-issue`: label one issue's clarity and candidate solution from files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

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
from spice_engine.errors import SpiceError
from spice_engine.issue_clarity import IssueOptions, assess_issue
from spice_engine.issue_signals import IssueSignals
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.models import Issue, IssueAssessment
from spice_engine.summary import result_lines


def assessment_json(result: IssueAssessment) -> dict[str, object]:
    """The documented machine output: the full result plus flat `tokens` and `cost_usd`."""
    data = result.model_dump(mode="json")
    data["prompt_id"] = result.prompt.id
    data["prompt_version"] = result.prompt.version
    data["tokens"] = {"input": result.usage.input, "output": result.usage.output}
    data["cost_usd"] = result.usage.cost_usd if result.usage.cost_known else None
    return data


def summary(result: IssueAssessment) -> str:
    c = result.clarity
    lines = [
        *result_lines(result),
        f"candidate solution: {result.candidate_solution.value if result.candidate_solution else '-'}"
        f"{' (looks misleading)' if result.candidate_misleading else ''}",
    ]
    if result.evidence:
        try:
            signals = IssueSignals.model_validate(result.evidence)
        except ValidationError:
            signals = None  # evidence supplied by a caller in another shape
        if signals is not None:
            lines.append("evidence:")
            lines += [f"  {line}" for line in signals.summary().splitlines()]
    if result.questions:
        lines.append("questions for the reporter:")
        lines += [f"  - {q}" for q in result.questions]
    for i, v in enumerate(c.votes, 1):
        lines.append(f"vote {i} ({v.score}): {v.rationale}")
    for err in c.errors:
        lines.append(f"dropped: {err}")
    u = result.usage
    lines.append(
        f"model {result.model} · prompt {result.prompt.id} v{result.prompt.version} · "
        f"{u.input} in / {u.output} out tokens · {u.cost_text()}"
        + (" · issue truncated" if result.truncated else "")
    )
    return "\n".join(lines)


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
        typer.echo(summary(result))

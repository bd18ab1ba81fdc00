"""`spice label-instance`: label SWE-bench task instances, or dry-run their prompts for a report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from app.cli.common import (
    ApiBaseOption,
    ModelOption,
    VotesOption,
    emit_json,
    fail,
    settings_with,
    setup_logging,
)
from spice_engine.errors import InputError
from spice_engine.jsonl import instances

if TYPE_CHECKING:
    from app.settings import Settings
    from spice_engine.errors import SpiceError
    from spice_engine.llm.litellm_chat import LiteLLMChat
    from spice_engine.pr.cost_report import PromptSample


def read_instances(path: Path, limit: int | None) -> list[dict[str, Any]]:
    try:
        rows = instances(path)
    except InputError as exc:
        fail(str(exc))
    return rows[:limit] if limit else rows


def _report_text(report: dict[str, Any]) -> str:
    from spice_engine.pr.cost_report import DIMENSIONS, SPICE_PUBLISHED_COST

    lines = [f"{report['instances']} instances, context modes {report['context_modes']}"]
    for dim in DIMENSIONS:
        if dim in report:
            r = report[dim]
            lines.append(
                f"{dim:10} input tokens: median {r['input_tokens_median']:.0f}, "
                f"p90 {r['input_tokens_p90']:.0f}"
            )
    for model, cost in report["cost_per_1000_usd"].items():
        cached = report["cost_per_1000_usd_with_prompt_cache"][model]
        shown = (
            "unknown price" if cost is None else f"${cost:.2f} (${cached:.2f} with prompt cache)"
        )
        lines.append(f"cost per 1,000 instances, {model}, 3 votes: {shown}")
    lines.append(f"SPICE published: ${SPICE_PUBLISHED_COST:.2f} per 1,000 instances")
    return "\n".join(lines)


FileArg = Annotated[Path, typer.Argument(help="SWE-bench instances, one JSON object a line.")]
ReposOption = Annotated[
    Path | None, typer.Option(help="Clones named owner__name (or owner/name, name).")
]
DryRunFlag = Annotated[bool, typer.Option(help="Render prompts and count tokens only.")]
ReportFlag = Annotated[bool, typer.Option(help="With --dry-run: token and cost summary.")]
LimitOption = Annotated[int | None, typer.Option(min=1, help="Only the first N instances.")]
CostModelOption = Annotated[
    list[str] | None, typer.Option(help="Extra models to price in the report (repeatable).")
]
MaxTokensOption = Annotated[int | None, typer.Option(help="Hard cap on prompt tokens.")]
JsonOutFlag = Annotated[bool, typer.Option("--json", help="JSON output.")]


def label_instance(
    file: FileArg,
    repos_dir: ReposOption = None,
    dry_run: DryRunFlag = False,
    report: ReportFlag = False,
    limit: LimitOption = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: VotesOption = None,
    cost_model: CostModelOption = None,
    max_prompt_tokens: MaxTokensOption = None,
    as_json: JsonOutFlag = False,
) -> None:
    """Label SWE-bench instances (tests + difficulty), or dry-run them for a token/cost report."""
    if report and not dry_run:
        fail("--report needs --dry-run: the report prices prompts without sending them")
    # Read before the pipeline's imports (seconds of litellm): a wrong path is said at once.
    rows = [r for r in read_instances(file, limit) if r.get("patch")]
    if not rows:
        fail(f"{file} holds no instance with a patch")
    from tqdm import tqdm  # type: ignore[import-untyped]

    from app.cli.render import pr_options
    from app.local_repos import instance_checkout
    from spice_engine.errors import SpiceError
    from spice_engine.pr.cost_report import build_report, prompt_sample
    from spice_engine.pr.pipeline import assess_instance
    from spice_engine.pr.repo_context import RepoContextBuilder

    settings = settings_with(model=model, api_base=api_base, votes=votes)
    setup_logging("WARNING" if as_json else settings.log_level, settings.log_format)
    opts = pr_options(settings, max_prompt_tokens)
    builder = RepoContextBuilder(opts.context)
    samples: list[PromptSample] = []
    modes: dict[str, int] = {}
    failed: list[str] = []
    bar = tqdm(rows, unit="instance", desc="label", disable=None, dynamic_ncols=True)
    for row in bar:
        notes: list[str] = []
        try:
            with instance_checkout(settings, repos_dir, row, notes) as path:
                mode = "repository" if path else "patches_only"
                modes[mode] = modes.get(mode, 0) + 1
                if dry_run:
                    samples.append(prompt_sample(row, path, opts, builder))
                    if not report:
                        _emit_sample(row, samples[-1], as_json)
                    continue
                result = assess_instance(row, _chat(settings), opts, path, builder=builder)
        except SpiceError as exc:
            # One bad instance must not cost the labels of the others: report it, go on.
            failed.append(str(row.get("instance_id", "?")))
            _emit_failure(failed[-1], exc, as_json and not dry_run)
            continue
        result.notes += notes
        _emit_result(row, result, as_json)
    if dry_run and report:
        out = build_report(samples, [settings.model, *(cost_model or [])], modes)
        emit_json(out) if as_json else typer.echo(_report_text(out))
    if failed:
        fail(f"{len(failed)} of {len(rows)} instances failed: {', '.join(failed[:10])}")


def _emit_failure(instance_id: str, exc: SpiceError, as_json: bool) -> None:
    typer.echo(f"error: {instance_id}: {exc}", err=True)
    if as_json:
        typer.echo(json.dumps({"instance_id": instance_id, "error": str(exc)}))


def _emit_result(row: dict[str, Any], result: Any, as_json: bool) -> None:
    from app.cli.render import pr_summary

    if as_json:
        typer.echo(result.model_dump_json())
    else:
        typer.echo(f"== {row.get('instance_id', '?')}\n{pr_summary(result)}")


def _chat(settings: Settings) -> LiteLLMChat:
    from spice_engine.llm.litellm_chat import LiteLLMChat

    return LiteLLMChat(settings.model_config_for())


def _emit_sample(row: dict[str, Any], sample: PromptSample, as_json: bool) -> None:
    if as_json:
        typer.echo(
            json.dumps({"instance_id": row.get("instance_id"), "input_tokens": sample.tokens})
        )
    else:
        typer.echo(f"{row.get('instance_id', '?')}: {sample.tokens}")

"""`spice label-instance`: label SWE-bench task instances, or dry-run their prompts for a report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

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
from app.cli.label_pr import checkout_at, pr_options, summary
from app.settings import Settings
from spice_engine.errors import SpiceError
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.pr.checkout import CheckoutError
from spice_engine.pr.cost_report import (
    DIMENSIONS,
    CostAssumptions,
    PromptSample,
    clarity_tokens,
    cost_per_1000,
    token_stats,
)
from spice_engine.pr.models import PROptions
from spice_engine.pr.pipeline import assess_instance, pr_from_instance, prepare_pr
from spice_engine.pr.repo_context import RepoContextBuilder
from spice_engine.pr.tokens import count_message_tokens

SPICE_PUBLISHED_COST = 5.10
"""SPICE's published labeling cost per 1,000 instances, for comparison."""


def read_instances(path: Path, limit: int | None) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                fail(f"{path}:{n} is not valid JSON: {exc.msg}")
    return rows[:limit] if limit else rows


def repo_dir(repos_dir: Path | None, repo: str) -> Path | None:
    """`DIR/owner__name`, `DIR/owner/name` or `DIR/name`, whichever is a git repository."""
    if repos_dir is None or not repo:
        return None
    owner, _, name = repo.partition("/")
    for candidate in (repos_dir / f"{owner}__{name}", repos_dir / owner / name, repos_dir / name):
        if (candidate / ".git").exists():
            return candidate
    return None


def _sample(
    row: dict[str, Any], path: Path | None, opts: PROptions, builder: RepoContextBuilder
) -> PromptSample:
    pr = pr_from_instance(row)
    prepared = prepare_pr(pr, opts, repo_path=path, builder=builder)
    tokens = dict(prepared.prompts.tokens)
    tokens["clarity"] = clarity_tokens(pr.issues[0])
    shared = count_message_tokens(next(iter(prepared.prompts.messages.values()))[:2])
    return PromptSample(tokens=tokens, shared_prefix=shared)


@contextmanager
def instance_checkout(
    settings: Settings, repos_dir: Path | None, row: dict[str, Any], notes: list[str]
) -> Iterator[Path | None]:
    """The instance's repository at its base commit when `--repos-dir` has it, else None."""
    source = repo_dir(repos_dir, str(row.get("repo") or ""))
    if source is None or not row.get("base_commit"):
        yield None
        return
    try:
        cm = checkout_at(settings, source, str(row["repo"]), str(row["base_commit"]))
        path = cm.__enter__()
    except CheckoutError as exc:
        notes.append(f"checkout failed, patches only: {exc}")
        yield None
        return
    try:
        yield path
    finally:
        cm.__exit__(None, None, None)


def build_report(
    samples: list[PromptSample], models: list[str], modes: dict[str, int]
) -> dict[str, Any]:
    """The dry-run report: token percentiles per dimension and cost per 1,000 instances."""
    assume = CostAssumptions()
    stats = token_stats(samples)
    report: dict[str, Any] = {d: s.model_dump() for d, s in stats.items()}
    report["cost_per_1000_usd"] = {m: cost_per_1000(m, samples, assume) for m in models}
    report["cost_per_1000_usd_with_prompt_cache"] = {
        m: cost_per_1000(m, samples, assume, prompt_cache=True) for m in models
    }
    report["spice_published_cost_per_1000_usd"] = SPICE_PUBLISHED_COST
    report["instances"] = len(samples)
    report["context_modes"] = modes
    report["assumptions"] = assume.model_dump() | {
        "billing": "input billed once per n=k request where the provider supports n; "
        "else once per vote"
    }
    return report


def _report_text(report: dict[str, Any]) -> str:
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


def label_instance(
    file: Annotated[Path, typer.Argument(help="SWE-bench instances, one JSON object a line.")],
    repos_dir: Annotated[
        Path | None, typer.Option(help="Clones named owner__name (or owner/name, name).")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Render prompts and count tokens only.")] = False,
    report: Annotated[bool, typer.Option(help="With --dry-run: token and cost summary.")] = False,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N instances.")] = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    votes: VotesOption = None,
    cost_model: Annotated[
        list[str] | None, typer.Option(help="Extra models to price in the report (repeatable).")
    ] = None,
    max_prompt_tokens: Annotated[
        int | None, typer.Option(help="Hard cap on prompt tokens.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """Label SWE-bench instances (tests + difficulty), or dry-run them for a token/cost report."""
    settings = settings_with(model=model, api_base=api_base, votes=votes)
    setup_logging("WARNING" if as_json else settings.log_level, settings.log_format)
    rows = [r for r in read_instances(file, limit) if r.get("patch")]
    if not rows:
        fail(f"{file} holds no instance with a patch")
    opts = pr_options(settings, max_prompt_tokens)
    builder = RepoContextBuilder(opts.context)
    samples: list[PromptSample] = []
    modes: dict[str, int] = {}
    failed: list[str] = []
    for row in rows:
        notes: list[str] = []
        try:
            with instance_checkout(settings, repos_dir, row, notes) as path:
                modes["repository" if path else "patches_only"] = (
                    modes.get("repository" if path else "patches_only", 0) + 1
                )
                if dry_run:
                    samples.append(_sample(row, path, opts, builder))
                    if not report:
                        _emit_sample(row, samples[-1], as_json)
                    continue
                result = assess_instance(row, _chat(settings), opts, path, builder=builder)
        except SpiceError as exc:
            # One bad instance must not cost the labels of the others: report it, go on.
            failed.append(str(row.get("instance_id", "?")))
            typer.echo(f"error: {failed[-1]}: {exc}", err=True)
            if as_json and not dry_run:
                typer.echo(json.dumps({"instance_id": failed[-1], "error": str(exc)}))
            continue
        result.notes += notes
        if as_json:
            typer.echo(result.model_dump_json())
        else:
            typer.echo(f"== {row.get('instance_id', '?')}\n{summary(result)}")
    if dry_run and report:
        out = build_report(samples, [settings.model, *(cost_model or [])], modes)
        emit_json(out) if as_json else typer.echo(_report_text(out))
    if failed:
        fail(f"{len(failed)} of {len(rows)} instances failed: {', '.join(failed[:10])}")


def _chat(settings: Settings) -> LiteLLMChat:
    return LiteLLMChat(settings.model_config_for())


def _emit_sample(row: dict[str, Any], sample: PromptSample, as_json: bool) -> None:
    if as_json:
        typer.echo(
            json.dumps({"instance_id": row.get("instance_id"), "input_tokens": sample.tokens})
        )
    else:
        typer.echo(f"{row.get('instance_id', '?')}: {sample.tokens}")

"""`spice eval`: score predictions (ours or anyone's) against human labels."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import fail
from app.cli.score_text import baseline_text
from spice_engine.errors import InputError
from spice_engine.evaluation.gold import DIMENSIONS


def _label_map(value: str | None) -> dict[str, int] | None:
    """Inline JSON or a path to a JSON file: `{"VAGUE": 2, ...}`."""
    if value is None:
        return None
    text = Path(value).read_text(encoding="utf-8") if Path(value).is_file() else value
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--label-map is not JSON: {exc.msg}") from exc
    if not isinstance(data, dict) or not all(
        isinstance(v, int) and 0 <= v <= 3 for v in data.values()
    ):
        raise InputError("--label-map must map label names to integers 0-3")
    return {str(k): int(v) for k, v in data.items()}


def _finite(value: Any) -> Any:
    """NaN (undefined metric) -> null, so the report is strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _text_report(report: dict[str, dict[str, Any]]) -> str:
    from spice_engine.evaluation.report import CONTRACT_KEYS

    lines = []
    for dim, entry in report.items():
        rules = [("majority", entry)] + (
            [("max of votes", entry["max_of_votes"])] if "max_of_votes" in entry else []
        )
        for rule, r in rules:
            ci = r.get("ci95", {})
            lines.append(f"{dim} [{rule}] n={r['n']}")
            for key in CONTRACT_KEYS:
                band = f"  (95% CI [{ci[key][0]:.3f}, {ci[key][1]:.3f}])" if key in ci else ""
                lines.append(f"  {key:16s} {_fmt(r[key])}{band}")
            lines.append("  confusion (rows human 0-3, columns predicted 0-3):")
            lines += [f"    {row}" for row in r["confusion"]]
        if entry.get("per_repo"):
            lines.append(f"{dim} [majority] per repository:")
        for repo, r in entry.get("per_repo", {}).items():
            lines.append(
                f"  {repo:28s} n={r['n']:<4} acc={_fmt(r['accuracy'])} "
                f"kappa_q={_fmt(r['kappa_quadratic'])} f1_bad={_fmt(r['f1_bad'])}"
            )
    return "\n".join(lines)


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


GoldOption = Annotated[
    Path | None, typer.Option(help="Human labels (SWE-bench Verified annotations CSV).")
]
PredictionsOption = Annotated[
    Path | None,
    typer.Option(help="Our JSONL output, or a JSON object / JSONL / CSV keyed by instance_id."),
]
DimensionOption = Annotated[
    str | None, typer.Option(help=f"{' | '.join(DIMENSIONS)} (default: all present).")
]
LabelMapOption = Annotated[
    str | None, typer.Option(help="JSON (inline or a file) mapping label names to 0-3.")
]
JsonOutOption = Annotated[
    Path | None, typer.Option("--json", help="Write the report as JSON here.")
]
PlotOption = Annotated[Path | None, typer.Option(help="Write confusion matrices as PNG here.")]
ResamplesOption = Annotated[int, typer.Option(min=0, help="Bootstrap resamples for 95% CIs.")]
InstancesOption = Annotated[
    Path | None,
    typer.Option(help="SWE-bench instances JSONL: also print the PR-evidence baselines."),
]
FromStoreFlag = Annotated[
    bool,
    typer.Option(
        "--from-store", help="Our stored labels against maintainers' corrections (the App)."
    ),
]
RepoOption = Annotated[str | None, typer.Option(help="With --from-store: only OWNER/NAME.")]
SinceOption = Annotated[str | None, typer.Option(help="With --from-store: since this date.")]


def _from_store(repo: str | None, since: str | None) -> tuple[dict[str, dict[str, int]], Any]:
    """Gold = maintainers' final labels, predictions = ours; says what is not counted."""
    from app.cli.common import settings_with
    from app.feedback_eval import from_store
    from app.harvest.decontam import parse_date

    try:
        found = from_store(settings_with(), repo, parse_date(since) if since else None)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(
        f"from the store: {_count(len(found.gold), 'item')} with a maintainer's label; "
        f"{_count(found.untouched, 'assessed item')} nobody touched (not counted as "
        f"agreement); {_count(found.removed_only, 'label')} removed without a replacement "
        "(no score to compare)"
    )
    if not found.gold:
        fail("no maintainer has corrected or confirmed a label of ours yet: nothing to measure")
    return found.gold, found.preds


def evaluate_cmd(
    gold: GoldOption = None,
    predictions: PredictionsOption = None,
    dimension: DimensionOption = None,
    label_map: LabelMapOption = None,
    json_out: JsonOutOption = None,
    plot: PlotOption = None,
    resamples: ResamplesOption = 1000,
    instances: InstancesOption = None,
    from_store: FromStoreFlag = False,
    repo: RepoOption = None,
    since: SinceOption = None,
) -> None:
    """Agreement of predictions with human labels: accuracy, kappa, alpha, F1, CIs, per repo."""
    from spice_engine.evaluation.gold import read_gold
    from spice_engine.evaluation.predictions import read_predictions

    if dimension is not None and dimension not in DIMENSIONS:
        fail(f"--dimension must be one of {', '.join(DIMENSIONS)}")
    if from_store:
        gold_labels, preds = _from_store(repo, since)
    elif gold is None or predictions is None:
        fail("give --gold and --predictions, or --from-store")
    else:
        try:
            mapping = _label_map(label_map)
            gold_labels = read_gold(gold)
            preds = read_predictions(predictions, mapping, default_dimension=dimension or "clarity")
        except (InputError, OSError) as exc:
            fail(str(exc))
    # scikit-learn and matplotlib take seconds to import (tens on a cold disk): only once the
    # input has been read, so a wrong path is said at once.
    from spice_engine.evaluation.report import evaluate

    dims = [dimension] if dimension else list(DIMENSIONS)
    report = evaluate(gold_labels, preds, dims, resamples=resamples)
    if not report:
        fail("no prediction matches a gold label (check instance_id values and --dimension)")
    if json_out is not None:
        json_out.write_text(
            json.dumps(_finite(report), indent=2, allow_nan=False), encoding="utf-8"
        )
    if plot is not None:
        from spice_engine.evaluation.plot import plot_confusions

        plot_confusions(report, plot)
    typer.echo(_text_report(report))
    if instances is not None and gold is not None and {"tests", "difficulty"} & set(report):
        typer.echo(baseline_text(instances, gold, set(preds)))

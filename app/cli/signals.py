"""`spice signals`: run the evidence extractor over instances and score it against human labels."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import fail


def signals(
    instances: Annotated[Path, typer.Option(help="SWE-bench instances (JSONL).")],
    gold: Annotated[
        Path | None, typer.Option(help="Agentless-style labels CSV (labels_agentless.csv).")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write scores as JSON here.")
    ] = None,
    use_patch: Annotated[
        bool,
        typer.Option(
            "--use-patch/--text-only",
            help="Judge localization against each instance's gold patch (as the human labels "
            "do) or from the issue text alone.",
        ),
    ] = True,
    halves: Annotated[
        bool, typer.Option(help="Also score the two fixed halves of the labeled instances.")
    ] = False,
    dump: Annotated[
        Path | None, typer.Option(help="Write every instance's signals as JSONL here.")
    ] = None,
) -> None:
    """Extract issue evidence signals; with --gold, score them against the human labels.

    Each signal gets precision/recall/F1 on all labelled issues and its cross-validated F1
    (one repository held out at a time) with 95% bootstrap intervals.
    """
    from spice_engine.errors import InputError
    from spice_engine.evaluation.signals_cv import cross_validate
    from spice_engine.evaluation.signals_scoring import (
        read_agentless_labels,
        read_instances,
        score_signals,
        signals_for,
    )

    try:
        rows = read_instances(instances)
        labels = read_agentless_labels(gold) if gold else {}
    except (InputError, OSError) as exc:
        fail(str(exc))
    if gold and not labels:
        fail(f"{gold} holds no labels (expected labels_agentless.csv's columns)")
    started = time.perf_counter()
    extracted = signals_for(rows, list(rows), use_patch=use_patch)
    elapsed = time.perf_counter() - started
    typer.echo(f"extracted signals of {len(extracted)} instances in {elapsed:.2f} s")
    if dump is not None:
        _dump(dump, extracted)
    if not labels:
        return
    labeled = {i: s for i, s in extracted.items() if i in labels}
    if not labeled:
        fail(f"no instance of {instances} has a label in {gold}")
    scores = score_signals(labeled, labels)
    if halves:
        _add_halves(scores, labeled, labels)
    validated = cross_validate(labeled, labels)
    _print_scores(scores, use_patch)
    _print_cross_validated(validated)
    if json_out is not None:
        report = {
            name: {**sc.report(), "cross_validated": validated[name].model_dump()}
            for name, sc in scores.items()
            if name in validated
        }
        json_out.write_text(json.dumps(report, indent=2), encoding="utf-8")


def _dump(path: Path, extracted: dict[str, Any]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for iid, sig in extracted.items():
            fh.write(json.dumps({"instance_id": iid, **sig.model_dump(mode="json")}) + "\n")


def _add_halves(scores: dict[str, Any], labeled: dict[str, Any], labels: dict[str, Any]) -> None:
    """F1 on each fixed half of the labelled instances: how much the figure moves."""
    from spice_engine.evaluation.signals_scoring import half_of, score_signals

    for h in (0, 1):
        part = score_signals({i: s for i, s in labeled.items() if half_of(i) == h}, labels)
        for name, score in part.items():
            scores[name].extra[f"f1_half_{h}"] = score.f1


def _print_scores(scores: dict[str, Any], use_patch: bool) -> None:
    for name, sc in scores.items():
        sc.extra["localization_vs_gold_patch"] = use_patch
        notes = {k: v for k, v in sc.extra.items() if k != "localization_vs_gold_patch"}
        typer.echo(
            f"{name:22s} P={sc.precision:.3f} R={sc.recall:.3f} F1={sc.f1:.3f} "
            f"n={sc.n} (human positives {sc.positives})" + (f"  {notes}" if notes else "")
        )


def _print_cross_validated(validated: dict[str, Any]) -> None:
    typer.echo(
        "cross-validated (leave one repository out; 95% bootstrap intervals, issues / "
        "repositories resampled):"
    )
    for name, cv in validated.items():
        per_issue, per_repo = cv.f1_issues, cv.f1_repositories
        typer.echo(
            f"{name:22s} F1={cv.f1:.3f} [{per_issue.low:.2f}, {per_issue.high:.2f}] "
            f"[{per_repo.low:.2f}, {per_repo.high:.2f}]  folds deciding as shipped "
            f"{cv.folds_as_shipped}/{cv.folds}"
        )

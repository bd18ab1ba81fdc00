"""`spice signals`: run the evidence extractor over instances and score it against human labels."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import fail
from spice_engine.errors import InputError
from spice_engine.evaluation.signals_scoring import (
    BinaryScore,
    half_of,
    read_agentless_labels,
    read_instances,
    score_signals,
    signals_for,
)


def signals(
    instances: Annotated[Path, typer.Option(help="SWE-bench instances (JSONL).")],
    gold: Annotated[
        Path | None, typer.Option(help="Agentless-style labels CSV (labels_agentless.csv).")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write scores as JSON here.")
    ] = None,
    halves: Annotated[
        bool, typer.Option(help="Also score the two fixed halves of the labeled instances.")
    ] = False,
    dump: Annotated[
        Path | None, typer.Option(help="Write every instance's signals as JSONL here.")
    ] = None,
) -> None:
    """Extract issue evidence signals; with --gold, print precision/recall/F1 per signal."""
    try:
        rows = read_instances(instances)
        labels = read_agentless_labels(gold) if gold else {}
    except (InputError, OSError) as exc:
        fail(str(exc))
    started = time.perf_counter()
    extracted = signals_for(rows, list(rows))
    elapsed = time.perf_counter() - started
    typer.echo(f"extracted signals of {len(extracted)} instances in {elapsed:.2f} s")
    if dump is not None:
        with dump.open("w", encoding="utf-8") as fh:
            for iid, sig in extracted.items():
                fh.write(json.dumps({"instance_id": iid, **sig.model_dump(mode="json")}) + "\n")
    if not labels:
        return
    labeled = {i: s for i, s in extracted.items() if i in labels}
    if not labeled:
        fail("no instance of --instances has a label in --gold")
    scores = score_signals(labeled, labels)
    for name, sc in scores.items():
        if isinstance(sc, BinaryScore):
            typer.echo(
                f"{name:24s} P={sc.precision:.3f} R={sc.recall:.3f} F1={sc.f1:.3f} "
                f"n={sc.n} (human positives {sc.positives})"
            )
        else:
            typer.echo(f"{name:24s} {sc}")
    out: dict[str, object] = {
        k: v.model_dump() if isinstance(v, BinaryScore) else v for k, v in scores.items()
    }
    if halves:
        for h in (0, 1):
            part = {i: s for i, s in labeled.items() if half_of(i) == h}
            half_scores = score_signals(part, labels)
            out[f"half_{h}"] = {
                k: v.model_dump() for k, v in half_scores.items() if isinstance(v, BinaryScore)
            }
            typer.echo(
                f"half {h}: "
                + "  ".join(
                    f"{k}={v.f1:.3f}" for k, v in half_scores.items() if isinstance(v, BinaryScore)
                )
            )
    if json_out is not None:
        json_out.write_text(json.dumps(out, indent=2), encoding="utf-8")

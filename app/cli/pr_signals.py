"""`spice pr-signals`: score the deterministic PR evidence against SWE-bench Verified labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.cli.common import fail
from app.cli.score_text import report_text

if TYPE_CHECKING:
    pass


def pr_signals(
    instances: Annotated[
        Path, typer.Option(help="SWE-bench instances JSONL (patch, test_patch, problem_statement).")
    ],
    gold: Annotated[Path, typer.Option(help="Human labels CSV (labels_openai.csv columns).")],
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Write the contract JSON (tests_flag, difficulty_prior) here."),
    ] = None,
) -> None:
    """Score the deterministic test-adequacy flags and difficulty prior against human labels."""
    from spice_engine.errors import SpiceError
    from spice_engine.pr_evidence.benchmark import load_cases, score

    try:
        cases = load_cases(instances, gold)
    except SpiceError as exc:
        fail(str(exc))
    if not cases:
        fail(f"no instance of {instances} has a label in {gold} (labels_openai.csv's columns)")
    report = score(cases)
    typer.echo(report_text(report))
    if json_out is not None:
        json_out.write_text(json.dumps(report.contract(), indent=2) + "\n")

"""The PR-evidence scores as text, for `spice pr-signals` and the baselines `spice eval` shows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spice_engine.pr_evidence.benchmark import BinaryScore, OrdinalScore, Report


def _binary(score_: BinaryScore) -> str:
    return (
        f"precision {score_.precision:.3f}  recall {score_.recall:.3f}  f1 {score_.f1:.3f}"
        f"  (fired {score_.fired}, positives {score_.positives}, n {score_.n})"
    )


def _ordinal(score_: OrdinalScore) -> str:
    return (
        f"accuracy {score_.accuracy:.3f}  quadratic kappa {score_.kappa_quadratic:.3f}"
        f"  (n {score_.n})"
    )


def report_text(report: Report) -> str:
    """Human-readable scores: headline, per half, per flag (* = counts toward tests_flag)."""
    from spice_engine.pr_evidence.benchmark import BinaryScore, OrdinalScore

    lines = [
        f"tests_flag (any counting flag vs false_negative >= 2): {_binary(report.tests_flag)}",
        f"difficulty_prior vs difficulty: {_ordinal(report.difficulty_prior)}",
    ]
    for half, scores in report.halves.items():
        tests, prior = scores["tests_flag"], scores["difficulty_prior"]
        assert isinstance(tests, BinaryScore) and isinstance(prior, OrdinalScore)
        lines.append(f"half {half}: tests {_binary(tests)}; prior {_ordinal(prior)}")
    lines.append("per flag:")
    for name, flag_score in report.per_flag.items():
        marker = "*" if name in report.counting_flags else " "
        lines.append(f"  {marker} {name:36s} {_binary(flag_score)}")
    return "\n".join(lines)


def baseline_text(instances: Path, gold: Path, ids: set[str]) -> str:
    """The deterministic baselines on the given instances, for `spice eval` to print."""
    from spice_engine.errors import SpiceError
    from spice_engine.pr_evidence.benchmark import load_cases, score

    try:
        report = score(load_cases(instances, gold, only=ids))
    except SpiceError as exc:
        return f"deterministic PR-evidence baselines unavailable: {exc}"
    return (
        "deterministic PR-evidence baselines on the same instances (spice pr-signals):\n"
        f"  tests_flag        {_binary(report.tests_flag)}\n"
        f"  difficulty_prior  {_ordinal(report.difficulty_prior)}"
    )

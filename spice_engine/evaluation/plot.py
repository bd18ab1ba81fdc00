"""Confusion matrices as one PNG (matplotlib's Agg canvas: no display, no global state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from spice_engine.evaluation.metrics import SCALE


def _panels(report: dict[str, dict[str, Any]]) -> list[tuple[str, list[list[int]], float | None]]:
    panels = []
    for dim, entry in report.items():
        panels.append((f"{dim} (majority)", entry["confusion"], entry.get("kappa_quadratic")))
        if "max_of_votes" in entry:
            mv = entry["max_of_votes"]
            panels.append((f"{dim} (max of votes)", mv["confusion"], mv.get("kappa_quadratic")))
    return panels


def plot_confusions(report: dict[str, dict[str, Any]], out: Path) -> None:
    """One heat map per dimension and rule: rows human labels, columns predictions."""
    panels = _panels(report)
    fig = Figure(figsize=(4 * max(1, len(panels)), 4), layout="constrained")
    FigureCanvasAgg(fig)
    for i, (title, matrix, kappa) in enumerate(panels, 1):
        ax = fig.add_subplot(1, len(panels), i)
        ax.imshow(matrix, cmap="Blues")
        for r, row in enumerate(matrix):
            for c, count in enumerate(row):
                ax.text(c, r, str(count), ha="center", va="center")
        ax.set_xticks(SCALE)
        ax.set_yticks(SCALE)
        ax.set_xlabel("predicted")
        ax.set_ylabel("human")
        suffix = f"\nquadratic kappa {kappa:.2f}" if isinstance(kappa, float) else ""
        ax.set_title(title + suffix)
    fig.savefig(out, format="png", dpi=100)

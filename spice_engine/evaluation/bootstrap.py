"""Bootstrap 95% intervals; counting metrics are recomputed from confusion matrices for speed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from spice_engine.evaluation.metrics import BAD_AT, METRICS, SCALE, Metric

_K = len(SCALE)
_DIST = np.subtract.outer(np.arange(_K), np.arange(_K))


class Interval(BaseModel):
    low: float
    high: float


def _kappa_from(cm: np.ndarray, weights: np.ndarray) -> float:
    """Cohen's kappa from a confusion matrix (same definition and degenerate rule as metrics)."""
    n = cm.sum()
    expected = np.outer(cm.sum(1), cm.sum(0)) / n
    denominator = (weights * expected).sum()
    if denominator == 0:
        return 1.0 if (weights * cm).sum() == 0 else 0.0
    return float(1 - (weights * cm).sum() / denominator)


def _binary(cm: np.ndarray) -> np.ndarray:
    good, bad = slice(0, BAD_AT), slice(BAD_AT, _K)
    return np.array(
        [[cm[good, good].sum(), cm[good, bad].sum()], [cm[bad, good].sum(), cm[bad, bad].sum()]]
    )


def from_confusion(cm: np.ndarray) -> dict[str, float]:
    """accuracy, within_one, kappas and bad-class P/R/F1 of one 4x4 confusion matrix."""
    n = cm.sum()
    b = _binary(cm)
    tp, fp, fn = b[1, 1], b[0, 1], b[1, 0]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "accuracy": float(np.trace(cm) / n),
        "within_one": float(cm[np.abs(_DIST) <= 1].sum() / n),
        "kappa_binary": _kappa_from(b, 1 - np.eye(2)),
        "kappa_quadratic": _kappa_from(cm, _DIST.astype(float) ** 2),
        "precision_bad": float(precision),
        "recall_bad": float(recall),
        "f1_bad": float(f1),
    }


def bootstrap_ci(
    gold: Sequence[int],
    pred: Sequence[int],
    metrics: dict[str, Metric] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Interval]:
    """Percentile 95% intervals from resampling the items with replacement (fixed seed)."""
    chosen = metrics or METRICS
    g = np.asarray(gold, dtype=int)
    p = np.asarray(pred, dtype=int)
    if len(g) < 2:
        return {}
    rng = np.random.default_rng(seed)
    samples: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(resamples):
        idx = rng.integers(0, len(g), len(g))
        gs, ps = g[idx], p[idx]
        cm = np.bincount(gs * _K + ps, minlength=_K * _K).reshape(_K, _K)
        counted = from_confusion(cm)
        for name, fn in chosen.items():
            value = counted.get(name)
            samples[name].append(value if value is not None else fn(gs.tolist(), ps.tolist()))
    out = {}
    for name, values in samples.items():
        arr = np.asarray(values, dtype=float)
        arr = arr[~np.isnan(arr)]
        if len(arr):
            out[name] = Interval(
                low=float(np.percentile(arr, 2.5)), high=float(np.percentile(arr, 97.5))
            )
    return out

"""Agreement metrics between predicted and human 0-3 labels (RUBRICS.md §6)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_recall_fscore_support

SCALE = [0, 1, 2, 3]
BAD_AT = 2
"""Binary use of every scale: 0-1 good, 2-3 bad."""


def accuracy(gold: Sequence[int], pred: Sequence[int]) -> float:
    return float(np.mean(np.asarray(gold) == np.asarray(pred))) if len(gold) else math.nan


def within_one(gold: Sequence[int], pred: Sequence[int]) -> float:
    diff = np.abs(np.asarray(gold) - np.asarray(pred))
    return float(np.mean(diff <= 1)) if len(gold) else math.nan


def _kappa(
    gold: Sequence[int], pred: Sequence[int], weights: str | None, labels: list[int]
) -> float:
    """Cohen's kappa, defined where scikit-learn's is 0/0.

    When both raters use a single and the same category, expected agreement is 1 and kappa is
    0/0; we call perfect agreement 1.0 there. A constant predictor against varied gold gives 0 by
    the formula itself (observed agreement equals chance agreement).
    """
    if not len(gold):
        return math.nan
    if list(gold) == list(pred) and len(set(gold)) == 1:
        return 1.0
    value = float(cohen_kappa_score(gold, pred, labels=labels, weights=weights))
    return 0.0 if math.isnan(value) else value


def binarize(values: Sequence[int]) -> list[int]:
    return [int(v >= BAD_AT) for v in values]


def kappa_binary(gold: Sequence[int], pred: Sequence[int]) -> float:
    return _kappa(binarize(gold), binarize(pred), None, [0, 1])


def kappa_quadratic(gold: Sequence[int], pred: Sequence[int]) -> float:
    return _kappa(gold, pred, "quadratic", SCALE)


def _alpha(
    gold: Sequence[int],
    pred: Sequence[int],
    level: Literal["nominal", "ordinal"],
    domain: list[int],
) -> float:
    """Krippendorff's alpha for two raters; all-identical data (no variation) counts as 1.0."""
    if not len(gold):
        return math.nan
    if len(set(gold) | set(pred)) == 1:
        return 1.0
    data = np.asarray([gold, pred], dtype=float)
    return float(
        krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain)
    )


def alpha_ordinal(gold: Sequence[int], pred: Sequence[int]) -> float:
    return _alpha(gold, pred, "ordinal", SCALE)


def alpha_binary(gold: Sequence[int], pred: Sequence[int]) -> float:
    return _alpha(binarize(gold), binarize(pred), "nominal", [0, 1])


def binary_prf(
    truth: Sequence[bool | int], pred: Sequence[bool | int]
) -> tuple[float, float, float]:
    """Precision, recall, F1 of the positive class; 0.0 where a ratio is 0/0."""
    if not len(truth):
        return math.nan, math.nan, math.nan
    p, r, f, _ = precision_recall_fscore_support(
        [int(bool(t)) for t in truth],
        [int(bool(x)) for x in pred],
        labels=[1],
        average="binary",
        pos_label=1,
        zero_division=0,
    )
    return float(p), float(r), float(f)


def bad_class_prf(gold: Sequence[int], pred: Sequence[int]) -> tuple[float, float, float]:
    return binary_prf(binarize(gold), binarize(pred))


def confusion(gold: Sequence[int], pred: Sequence[int]) -> list[list[int]]:
    """Rows are human labels 0-3, columns predicted labels 0-3."""
    if not len(gold):
        return [[0] * len(SCALE) for _ in SCALE]
    return confusion_matrix(gold, pred, labels=SCALE).tolist()


Metric = Callable[[Sequence[int], Sequence[int]], float]

METRICS: dict[str, Metric] = {
    "accuracy": accuracy,
    "within_one": within_one,
    "kappa_binary": kappa_binary,
    "kappa_quadratic": kappa_quadratic,
    "alpha_ordinal": alpha_ordinal,
    "alpha_binary": alpha_binary,
    "precision_bad": lambda g, p: bad_class_prf(g, p)[0],
    "recall_bad": lambda g, p: bad_class_prf(g, p)[1],
    "f1_bad": lambda g, p: bad_class_prf(g, p)[2],
}

"""Cross-validated figures for the evidence signals: one repository held out at a time.

What is learned is the weakest evidence grade that counts as "the issue has it" (the cut with
the best F1 on the other repositories); the extractor's patterns are fixed. Each
repository is scored by a decision that never saw it, and the pooled out-of-fold predictions get
two bootstrap intervals: issues resampled (sampling noise) and repositories resampled (what a
repository unlike these may see).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pydantic import BaseModel

from spice_engine.evaluation.bootstrap import Interval
from spice_engine.evaluation.metrics import binary_prf
from spice_engine.evaluation.signals_scoring import SIGNALS
from spice_engine.issue_signals import IssueSignals

RESAMPLES = 2000

_PLACES = ("none", "natural_language", "keywords", "stacktrace")

# signal -> (its evidence grade, the grades from weakest to strongest, the weakest one shipped
# as "present")
GRADES: dict[str, tuple[Callable[[IssueSignals], str], tuple[str, ...], str]] = {
    "candidate_solution": (
        lambda s: s.candidate_solution.value,
        ("none", "partial", "complete", "exact_patch"),
        "partial",
    ),
    "reproduction": (lambda s: s.reproduction, ("none", "prose", "partial", "full"), "partial"),
    "file_localization": (lambda s: s.localization.file, _PLACES, "natural_language"),
    "function_localization": (lambda s: s.localization.function, _PLACES, "natural_language"),
    "line_localization": (lambda s: s.localization.line, _PLACES, "natural_language"),
}


class RepositoryScore(BaseModel):
    n: int
    positives: int
    f1: float | None
    """None when the repository has no positive and none was predicted."""


class CrossValidated(BaseModel):
    """Out-of-fold figures of one signal, leave-one-repository-out."""

    n: int
    positives: int
    precision: float
    recall: float
    f1: float
    f1_issues: Interval
    """95% bootstrap interval, issues resampled."""
    f1_repositories: Interval
    """95% bootstrap interval, repositories resampled (a new repository's uncertainty)."""
    folds: int
    folds_as_shipped: int
    """Folds whose learned cut decides as the shipped one does."""
    per_repository: dict[str, RepositoryScore]


def repository_of(instance_id: str) -> str:
    """`django__django-11099` -> `django/django` (SWE-bench's instance id form)."""
    owner, _, rest = instance_id.partition("__")
    return f"{owner}/{rest.rsplit('-', 1)[0]}" if rest else owner


def cross_validate(
    signals: dict[str, IssueSignals],
    gold: dict[str, dict[str, str]],
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> dict[str, CrossValidated]:
    """Leave-one-repository-out estimates of every signal against the human labels."""
    result = {}
    for name, (column, to_gold, _) in SIGNALS.items():
        grade_of, order, shipped = GRADES[name]
        rows = [
            (iid, grade_of(sig), label)
            for iid, sig in signals.items()
            if (label := to_gold(gold.get(iid, {}).get(column, ""))) is not None
        ]
        if rows:
            ranked = [(iid, order.index(grade), label) for iid, grade, label in rows]
            result[name] = _estimate(ranked, order.index(shipped), resamples, seed)
    return result


def _estimate(
    rows: list[tuple[str, int, bool]], shipped: int, resamples: int, seed: int
) -> CrossValidated:
    repos = np.array([repository_of(iid) for iid, _, _ in rows])
    grades = np.array([g for _, g, _ in rows])
    truth = np.array([label for _, _, label in rows])
    pred = np.zeros(len(rows), dtype=bool)
    as_shipped = 0
    for repo in sorted(set(repos)):
        held = repos == repo
        # Alone, a repository has nothing to learn from: it is scored by the shipped cut.
        cut = _fit_cut(grades[~held], truth[~held]) if (~held).any() else shipped
        pred[held] = grades[held] >= cut
        # Cuts between grades nobody reached decide alike: compare what they predict.
        as_shipped += bool(np.array_equal(grades >= cut, grades >= shipped))
    rng = np.random.default_rng(seed)
    precision, recall, f1 = binary_prf(truth.tolist(), pred.tolist())
    names = sorted(set(repos))
    counts = np.array([_f1_counts(truth[repos == r], pred[repos == r]) for r in names])
    return CrossValidated(
        n=len(rows),
        positives=int(truth.sum()),
        precision=precision,
        recall=recall,
        f1=f1,
        f1_issues=_issue_interval(truth, pred, rng, resamples),
        f1_repositories=_repository_interval(counts, rng, resamples),
        folds=len(names),
        folds_as_shipped=as_shipped,
        per_repository={
            name: RepositoryScore(
                n=int((repos == name).sum()),
                positives=int(truth[repos == name].sum()),
                f1=_f1(*c) if c.sum() else None,
            )
            for name, c in zip(names, counts, strict=True)
        },
    )


def _fit_cut(grades: np.ndarray, truth: np.ndarray) -> int:
    """The weakest grade to count as present: best F1 on these issues, the stricter on ties."""
    scores = [_f1(*_f1_counts(truth, grades >= cut)) for cut in range(1, int(grades.max()) + 2)]
    return len(scores) - int(np.argmax(scores[::-1]))


def _f1_counts(truth: np.ndarray, pred: np.ndarray) -> tuple[int, int, int]:
    return int((truth & pred).sum()), int((~truth & pred).sum()), int((truth & ~pred).sum())


def _f1(tp: float, fp: float, fn: float) -> float:
    denominator = 2 * tp + fp + fn
    return float(2 * tp / denominator) if denominator else 0.0


def _vector_f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    denominator = 2 * tp + fp + fn
    return np.divide(2 * tp, denominator, out=np.zeros(len(tp)), where=denominator > 0)


def _interval(values: np.ndarray) -> Interval:
    low, high = np.percentile(values, [2.5, 97.5])
    return Interval(low=float(low), high=float(high))


def _issue_interval(
    truth: np.ndarray, pred: np.ndarray, rng: np.random.Generator, resamples: int
) -> Interval:
    idx = rng.integers(0, len(truth), size=(resamples, len(truth)))
    t, p = truth[idx], pred[idx]
    return _interval(_vector_f1((t & p).sum(1), (~t & p).sum(1), (t & ~p).sum(1)))


def _repository_interval(counts: np.ndarray, rng: np.random.Generator, resamples: int) -> Interval:
    """Resample repositories (rows of tp/fp/fn counts) with replacement."""
    picked = counts[rng.integers(0, len(counts), size=(resamples, len(counts)))].sum(1)
    return _interval(_vector_f1(picked[:, 0], picked[:, 1], picked[:, 2]))

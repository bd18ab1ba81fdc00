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
    tp, fp, fn = _f1_counts(truth, pred)
    return CrossValidated(
        n=len(rows),
        positives=int(truth.sum()),
        precision=_ratio(tp, tp + fp),
        recall=_ratio(tp, tp + fn),
        f1=_f1(tp, fp, fn),
        f1_issues=_issue_interval(truth, pred, rng, resamples),
        f1_repositories=_repository_interval(truth, pred, repos, rng, resamples),
        folds=len(set(repos)),
        folds_as_shipped=as_shipped,
        per_repository=_per_repository(truth, pred, repos),
    )


def _fit_cut(grades: np.ndarray, truth: np.ndarray) -> int:
    """The weakest grade to count as present: best F1 on these issues, the stricter on ties."""
    scores = [_f1(*_f1_counts(truth, grades >= cut)) for cut in range(1, int(grades.max()) + 2)]
    return len(scores) - int(np.argmax(scores[::-1]))


def _f1_counts(truth: np.ndarray, pred: np.ndarray) -> tuple[int, int, int]:
    return int((truth & pred).sum()), int((~truth & pred).sum()), int((truth & ~pred).sum())


def _ratio(a: float, b: float) -> float:
    return float(a / b) if b else 0.0


def _f1(tp: float, fp: float, fn: float) -> float:
    return _ratio(2 * tp, 2 * tp + fp + fn)


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


def _repository_interval(
    truth: np.ndarray,
    pred: np.ndarray,
    repos: np.ndarray,
    rng: np.random.Generator,
    resamples: int,
) -> Interval:
    names = sorted(set(repos))
    counts = np.array([_f1_counts(truth[repos == r], pred[repos == r]) for r in names])
    picked = counts[rng.integers(0, len(names), size=(resamples, len(names)))].sum(1)
    return _interval(_vector_f1(picked[:, 0], picked[:, 1], picked[:, 2]))


def _per_repository(
    truth: np.ndarray, pred: np.ndarray, repos: np.ndarray
) -> dict[str, RepositoryScore]:
    out = {}
    for repo in sorted(set(repos)):
        held = repos == repo
        tp, fp, fn = _f1_counts(truth[held], pred[held])
        out[repo] = RepositoryScore(
            n=int(held.sum()),
            positives=int(truth[held].sum()),
            f1=_f1(tp, fp, fn) if tp + fp + fn else None,
        )
    return out

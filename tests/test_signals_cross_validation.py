"""Leave-one-repository-out figures of the evidence signals, on labels whose answer is known."""

from __future__ import annotations

from spice_engine.evaluation.signals_cv import cross_validate, repository_of
from spice_engine.issue_signals import IssueSignals
from spice_engine.models import CandidateSolution

COLUMN = "solution in description"


def _issues(
    repo: str, rows: list[tuple[CandidateSolution, str]]
) -> tuple[dict[str, IssueSignals], dict[str, dict[str, str]]]:
    signals, gold = {}, {}
    for n, (level, label) in enumerate(rows):
        iid = f"{repo}__{repo}-{n}"
        signals[iid] = IssueSignals(candidate_solution=level)
        gold[iid] = {COLUMN: label}
    return signals, gold


def _merge(
    *parts: tuple[dict[str, IssueSignals], dict[str, dict[str, str]]],
) -> tuple[dict[str, IssueSignals], dict[str, dict[str, str]]]:
    signals: dict[str, IssueSignals] = {}
    gold: dict[str, dict[str, str]] = {}
    for s, g in parts:
        signals |= s
        gold |= g
    return signals, gold


NONE, PARTIAL, COMPLETE = (
    CandidateSolution.NONE,
    CandidateSolution.PARTIAL,
    CandidateSolution.COMPLETE,
)
FIX, NO_FIX = "Some steps in NL", "No solution"


def test_repository_of_swebench_ids() -> None:
    assert repository_of("django__django-11099") == "django/django"
    assert repository_of("scikit-learn__scikit-learn-10508") == "scikit-learn/scikit-learn"
    assert repository_of("local") == "local"


def test_a_repository_is_scored_by_a_cut_learned_without_it() -> None:
    # In "a" and "b" a partial fix is a real fix; "c" alone labels partial ones "No solution".
    # Held out, "c" is judged by the others' cut (partial counts) and scores its false
    # positives; the shipped cut (partial counts) matches the folds learned on "a" + "b" and
    # on "a" + "c" or "b" + "c" (partial still wins there: 4 true of 6).
    signals, gold = _merge(
        _issues("a", [(PARTIAL, FIX), (PARTIAL, FIX), (COMPLETE, FIX), (NONE, NO_FIX)]),
        _issues("b", [(PARTIAL, FIX), (PARTIAL, FIX), (COMPLETE, FIX), (NONE, NO_FIX)]),
        _issues("c", [(PARTIAL, NO_FIX), (PARTIAL, NO_FIX), (COMPLETE, FIX), (NONE, NO_FIX)]),
    )
    cv = cross_validate(signals, gold, resamples=500)["candidate_solution"]
    assert cv.n == 12 and cv.positives == 7
    assert cv.folds == 3 and cv.folds_as_shipped == 3
    assert (cv.precision, cv.recall) == (7 / 9, 1.0)
    assert cv.per_repository["c/c"].f1 == 2 / 4  # 1 true positive, 2 false positives
    assert cv.f1_issues.low <= cv.f1 <= cv.f1_issues.high
    assert cv.f1_repositories.low <= cv.f1 <= cv.f1_repositories.high


def test_a_cut_that_only_one_repository_supports_is_not_credited_to_it() -> None:
    # Only "c" rewards counting partial fixes; learned without it, the cut is stricter, so
    # held out "c" loses the partial fixes an in-sample cut would have counted.
    signals, gold = _merge(
        _issues("a", [(PARTIAL, NO_FIX), (PARTIAL, NO_FIX), (COMPLETE, FIX), (NONE, NO_FIX)]),
        _issues("b", [(PARTIAL, NO_FIX), (PARTIAL, NO_FIX), (COMPLETE, FIX), (NONE, NO_FIX)]),
        _issues("c", [(PARTIAL, FIX)] * 6 + [(COMPLETE, FIX)]),
    )
    cv = cross_validate(signals, gold, resamples=500)["candidate_solution"]
    assert cv.per_repository["c/c"].f1 == 2 / 8  # only the complete fix counted: 1 of 7
    assert cv.folds_as_shipped < cv.folds


def test_intervals_are_reproducible_and_a_repository_without_positives_has_no_f1() -> None:
    signals, gold = _merge(
        _issues("a", [(PARTIAL, FIX), (NONE, NO_FIX), (COMPLETE, FIX), (NONE, FIX)] * 3),
        _issues("b", [(NONE, NO_FIX)] * 4),
    )
    first = cross_validate(signals, gold, resamples=300, seed=7)["candidate_solution"]
    again = cross_validate(signals, gold, resamples=300, seed=7)["candidate_solution"]
    assert first == again
    assert first.per_repository["b/b"].f1 is None
    assert first.per_repository["b/b"].positives == 0
    assert 0.0 < first.f1_issues.low < first.f1 < first.f1_issues.high <= 1.0


def test_issues_without_a_label_are_left_out() -> None:
    signals, gold = _issues("a", [(PARTIAL, FIX), (NONE, "Misleading"), (NONE, "")])
    cv = cross_validate(signals, gold, resamples=100)
    assert cv["candidate_solution"].n == 1
    assert "reproduction" not in cv  # no issue has that column

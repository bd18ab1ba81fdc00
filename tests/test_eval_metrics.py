"""Every agreement metric pinned by a hand-computed example and by scikit-learn / krippendorff."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, f1_score, precision_score, recall_score

from spice_engine.evaluation import metrics
from spice_engine.evaluation.bootstrap import bootstrap_ci, from_confusion

# A small worked example: 8 items, gold vs predicted on the 0-3 scale.
GOLD = [0, 1, 2, 3, 1, 2, 0, 3]
PRED = [0, 2, 2, 1, 1, 3, 0, 3]


def test_accuracy_and_within_one_by_hand() -> None:
    # exact: items 0, 2, 4, 6, 7 -> 5/8; off by one: items 1, 5; off by two: item 3.
    assert metrics.accuracy(GOLD, PRED) == pytest.approx(5 / 8)
    assert metrics.within_one(GOLD, PRED) == pytest.approx(7 / 8)


def test_binary_kappa_by_hand() -> None:
    # binary (>= 2): gold 0,0,1,1,0,1,0,1  pred 0,1,1,0,0,1,0,1
    # agreement 6/8; p_gold_bad = 4/8, p_pred_bad = 4/8 -> chance = .5*.5 + .5*.5 = .5
    # kappa = (0.75 - 0.5) / (1 - 0.5) = 0.5
    assert metrics.kappa_binary(GOLD, PRED) == pytest.approx(0.5)
    gb, pb = metrics.binarize(GOLD), metrics.binarize(PRED)
    assert metrics.kappa_binary(GOLD, PRED) == pytest.approx(cohen_kappa_score(gb, pb))


def test_quadratic_kappa_by_hand() -> None:
    # Weighted kappa = 1 - sum(w*O) / sum(w*E), w = (i-j)^2, E from the marginals.
    observed = np.zeros((4, 4))
    for g, p in zip(GOLD, PRED, strict=True):
        observed[g, p] += 1
    weights = np.array([[(i - j) ** 2 for j in range(4)] for i in range(4)])
    expected = np.outer(observed.sum(1), observed.sum(0)) / observed.sum()
    by_hand = 1 - (weights * observed).sum() / (weights * expected).sum()
    assert metrics.kappa_quadratic(GOLD, PRED) == pytest.approx(by_hand)
    assert metrics.kappa_quadratic(GOLD, PRED) == pytest.approx(
        cohen_kappa_score(GOLD, PRED, weights="quadratic")
    )


def test_bad_class_precision_recall_f1_by_hand() -> None:
    # bad = >= 2. TP: items 2, 5, 7 = 3; FP: item 1 = 1; FN: item 3 = 1.
    p, r, f = metrics.bad_class_prf(GOLD, PRED)
    assert (p, r, f) == pytest.approx((3 / 4, 3 / 4, 3 / 4))
    gb, pb = metrics.binarize(GOLD), metrics.binarize(PRED)
    assert p == pytest.approx(precision_score(gb, pb))
    assert r == pytest.approx(recall_score(gb, pb))
    assert f == pytest.approx(f1_score(gb, pb))


def test_ordinal_alpha_by_hand_on_a_tiny_example() -> None:
    # Two raters, three items: (0,0), (1,1), (0,1). Coincidences: o00 = 2, o11 = 2, o01 = o10 = 1;
    # n0 = n1 = 3, n = 6. With two adjacent ranks every disagreement has the same ordinal
    # distance, so alpha = 1 - D_o / D_e with D_o = 2/6 and D_e = 2*3*3 / (6*5) = 0.6 -> 4/9.
    gold, pred = [0, 1, 0], [0, 1, 1]
    assert metrics.alpha_ordinal(gold, pred) == pytest.approx(1 - (2 / 6) / 0.6)
    assert metrics.alpha_ordinal(gold, pred) == pytest.approx(4 / 9)
    expected = krippendorff.alpha(
        reliability_data=[gold, pred], level_of_measurement="ordinal", value_domain=[0, 1, 2, 3]
    )
    assert metrics.alpha_ordinal(gold, pred) == pytest.approx(expected)


def test_alpha_matches_krippendorff_package_on_the_example() -> None:
    expected = krippendorff.alpha(
        reliability_data=[GOLD, PRED], level_of_measurement="ordinal", value_domain=[0, 1, 2, 3]
    )
    assert metrics.alpha_ordinal(GOLD, PRED) == pytest.approx(expected)
    binary = krippendorff.alpha(
        reliability_data=[metrics.binarize(GOLD), metrics.binarize(PRED)],
        level_of_measurement="nominal",
    )
    assert metrics.alpha_binary(GOLD, PRED) == pytest.approx(binary)


def test_confusion_rows_are_gold_columns_are_predictions() -> None:
    matrix = metrics.confusion(GOLD, PRED)
    assert matrix[3][1] == 1  # gold 3 predicted 1
    assert matrix[1][2] == 1  # gold 1 predicted 2
    assert sum(map(sum, matrix)) == len(GOLD)
    assert [matrix[i][i] for i in range(4)] == [2, 1, 1, 1]


def test_identical_predictions_score_one_everywhere() -> None:
    for name, fn in metrics.METRICS.items():
        assert fn(GOLD, GOLD) == pytest.approx(1.0), name


def test_identical_constant_labels_are_perfect_agreement_not_nan() -> None:
    # Degenerate: both raters use one category; scikit-learn's kappa is 0/0 there.
    same = [1, 1, 1, 1]
    assert metrics.kappa_binary(same, same) == 1.0
    assert metrics.kappa_quadratic(same, same) == 1.0
    assert metrics.alpha_ordinal(same, same) == 1.0


def test_constant_predictor_has_zero_kappa() -> None:
    for constant in range(4):
        pred = [constant] * len(GOLD)
        assert metrics.kappa_quadratic(GOLD, pred) == pytest.approx(0.0)
        assert metrics.kappa_binary(GOLD, pred) == pytest.approx(0.0)


def test_empty_input_is_nan_not_an_error() -> None:
    assert math.isnan(metrics.accuracy([], []))
    assert math.isnan(metrics.kappa_quadratic([], []))


def test_bootstrap_interval_contains_the_point_estimate_and_is_reproducible() -> None:
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 4, 120).tolist()
    pred = [g if rng.random() < 0.6 else int(rng.integers(0, 4)) for g in gold]
    first = bootstrap_ci(gold, pred, resamples=200, seed=3)
    again = bootstrap_ci(gold, pred, resamples=200, seed=3)
    assert first == again
    for name in ("accuracy", "kappa_quadratic", "f1_bad"):
        point = metrics.METRICS[name](gold, pred)
        assert first[name].low <= point <= first[name].high
        assert first[name].high - first[name].low < 0.5


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=40).filter(
        lambda pairs: len({p for _, p in pairs}) > 1 and len({g for g, _ in pairs}) > 1
    )
)
def test_kappas_agree_with_scikit_learn_on_any_labels(pairs: list[tuple[int, int]]) -> None:
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    assert metrics.kappa_quadratic(gold, pred) == pytest.approx(
        cohen_kappa_score(gold, pred, labels=[0, 1, 2, 3], weights="quadratic"), abs=1e-9
    )
    assert metrics.accuracy(gold, pred) == pytest.approx(np.mean(np.equal(gold, pred)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40))
def test_bootstrap_fast_path_equals_the_library_metrics(pairs: list[tuple[int, int]]) -> None:
    gold = [g for g, _ in pairs]
    pred = [p for _, p in pairs]
    counted = from_confusion(np.asarray(metrics.confusion(gold, pred)))
    for name, value in counted.items():
        assert value == pytest.approx(metrics.METRICS[name](gold, pred), abs=1e-9), name

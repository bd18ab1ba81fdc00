"""Evaluate predictions against gold labels: every metric, both aggregation rules, per repo."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from spice_engine.evaluation import metrics
from spice_engine.evaluation.bootstrap import bootstrap_ci
from spice_engine.evaluation.gold import repo_of
from spice_engine.evaluation.predictions import Predictions

Rule = Literal["majority", "max_of_votes"]
CONTRACT_KEYS = (
    "accuracy",
    "within_one",
    "kappa_binary",
    "kappa_quadratic",
    "alpha_ordinal",
    "precision_bad",
    "recall_bad",
    "f1_bad",
)
_CI_METRICS = {
    k: metrics.METRICS[k]
    for k in ("accuracy", "kappa_binary", "kappa_quadratic", "alpha_ordinal", "f1_bad")
}


def pairs(
    gold: dict[str, dict[str, int]], preds: Predictions, dimension: str, rule: Rule
) -> list[tuple[str, int, int]]:
    """(instance_id, gold, predicted) for items labeled on both sides, sorted by id."""
    out = []
    for iid in sorted(set(gold) & set(preds)):
        if dimension in gold[iid] and dimension in preds[iid]:
            p = preds[iid][dimension]
            out.append(
                (iid, gold[iid][dimension], p.majority if rule == "majority" else p.max_of_votes)
            )
    return out


def score_pairs(
    items: list[tuple[str, int, int]], resamples: int = 1000, by_repo: bool = True
) -> dict[str, Any]:
    g = [x[1] for x in items]
    p = [x[2] for x in items]
    result: dict[str, Any] = {"n": len(items)}
    for key in CONTRACT_KEYS:
        result[key] = metrics.METRICS[key](g, p) if items else None
    result["alpha_binary"] = metrics.alpha_binary(g, p) if items else None
    result["confusion"] = metrics.confusion(g, p)
    if resamples:
        cis = bootstrap_ci(g, p, _CI_METRICS, resamples=resamples)
        result["ci95"] = {k: [v.low, v.high] for k, v in cis.items()}
    if by_repo:
        groups: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
        for item in items:
            groups[repo_of(item[0])].append(item)
        result["per_repo"] = {
            repo: {
                k: v
                for k, v in score_pairs(rows, resamples=0, by_repo=False).items()
                if k in ("n", "accuracy", "within_one", "kappa_quadratic", "f1_bad")
            }
            for repo, rows in sorted(groups.items())
        }
    return result


def evaluate(
    gold: dict[str, dict[str, int]],
    preds: Predictions,
    dimensions: list[str],
    resamples: int = 1000,
) -> dict[str, dict[str, Any]]:
    """Per dimension: the majority rule's metrics at top level, the max-of-votes rule nested.

    The max-of-votes rule is reported whenever any prediction carries votes: it is the rule
    comparable to SWE-bench Verified's human label (the worst of three annotators).
    """
    report: dict[str, dict[str, Any]] = {}
    for dim in dimensions:
        majority = pairs(gold, preds, dim, "majority")
        if not majority:
            continue
        entry = {"rule": "majority", **score_pairs(majority, resamples)}
        with_votes = any(dim in p and p[dim].votes for p in preds.values())
        if with_votes:
            entry["max_of_votes"] = score_pairs(pairs(gold, preds, dim, "max_of_votes"), resamples)
        entry["unmatched_predictions"] = sum(
            1 for iid, p in preds.items() if dim in p and dim not in gold.get(iid, {})
        )
        report[dim] = entry
    return report

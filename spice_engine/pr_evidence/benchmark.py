"""Score PR evidence against SWE-bench Verified human labels: flags vs tests, prior vs difficulty."""

from __future__ import annotations

import csv
import hashlib
import json
import warnings
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, Field
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from spice_engine.dimensions import DIFFICULTY
from spice_engine.errors import InputError
from spice_engine.pr_evidence.extract import pr_evidence
from spice_engine.pr_evidence.flags import COUNTING_FLAGS
from spice_engine.pr_evidence.models import PrEvidence


class Case(BaseModel):
    """One labelled instance with its evidence."""

    instance_id: str
    false_negative: float | None
    difficulty: int | None
    has_tests: bool
    evidence: PrEvidence


class BinaryScore(BaseModel):
    precision: float
    recall: float
    f1: float
    n: int
    fired: int = 0
    positives: int = 0


class OrdinalScore(BaseModel):
    accuracy: float
    kappa_quadratic: float
    n: int


class Report(BaseModel):
    tests_flag: BinaryScore
    difficulty_prior: OrdinalScore
    per_flag: dict[str, BinaryScore] = Field(default_factory=dict)
    halves: dict[str, dict[str, BinaryScore | OrdinalScore]] = Field(default_factory=dict)
    """The same two scores on each half of the instances (split by hash of instance_id)."""
    counting_flags: list[str] = Field(default_factory=lambda: sorted(COUNTING_FLAGS))

    def contract(self) -> dict[str, dict[str, float | int]]:
        """The interface-contract JSON: only the two headline scores."""
        return {
            "tests_flag": self.tests_flag.model_dump(include={"precision", "recall", "f1", "n"}),
            "difficulty_prior": self.difficulty_prior.model_dump(),
        }


def half_of(instance_id: str) -> str:
    """'a' (tuning) or 'b' (check), stable across runs and machines."""
    return "a" if hashlib.sha256(instance_id.encode()).digest()[0] % 2 == 0 else "b"


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def load_cases(instances: Path, gold: Path, only: set[str] | None = None) -> list[Case]:
    """Instances that have a human label (and are in `only`, if given), with their evidence."""
    try:
        with gold.open(newline="") as handle:
            labels = {row["instance_id"]: row for row in csv.DictReader(handle)}
        lines = instances.read_text().splitlines()
    except (OSError, KeyError) as exc:
        raise InputError(f"cannot read instances or labels: {exc}") from exc
    cases: list[Case] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{instances}:{number}: not JSON: {exc}") from exc
        label = labels.get(item.get("instance_id", ""))
        if label is None or not item.get("patch"):
            continue
        if only is not None and item["instance_id"] not in only:
            continue
        evidence = pr_evidence(
            item["patch"], item.get("test_patch") or "", item.get("problem_statement") or ""
        )
        cases.append(
            Case(
                instance_id=item["instance_id"],
                false_negative=_float(label.get("false_negative")),
                difficulty=DIFFICULTY.gold_values.get((label.get("difficulty") or "").strip()),
                has_tests=bool(item.get("test_patch")),
                evidence=evidence,
            )
        )
    return cases


def binary_score(pairs: Iterable[tuple[bool, bool]]) -> BinaryScore:
    """(predicted, actual) pairs -> precision/recall/F1 of the positive class."""
    items = list(pairs)
    tp = sum(p and a for p, a in items)
    fired = sum(p for p, _ in items)
    positives = sum(a for _, a in items)
    precision = tp / fired if fired else 0.0
    recall = tp / positives if positives else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return BinaryScore(
        precision=round(precision, 4),
        recall=round(recall, 4),
        f1=round(f1, 4),
        n=len(items),
        fired=fired,
        positives=positives,
    )


def ordinal_score(pairs: Iterable[tuple[int, int]]) -> OrdinalScore:
    items = list(pairs)
    if not items:
        return OrdinalScore(accuracy=0.0, kappa_quadratic=0.0, n=0)
    predicted = [p for p, _ in items]
    actual = [a for _, a in items]
    accuracy = sum(p == a for p, a in items) / len(items)
    # Undefined (one label only, as in tiny excerpts) is reported as 0: no agreement shown.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        kappa = cohen_kappa_score(
            predicted, actual, weights="quadratic", labels=[0, 1, 2, 3], replace_undefined_by=0.0
        )
    return OrdinalScore(
        accuracy=round(accuracy, 4), kappa_quadratic=round(float(kappa), 4), n=len(items)
    )


def _tests_pairs(cases: list[Case], flag: str | None = None) -> list[tuple[bool, bool]]:
    pairs = []
    for case in cases:
        if not case.has_tests or case.false_negative is None:
            continue
        if flag is None:
            fired = case.evidence.tests_flag
        else:
            fired = any(f.name == flag for f in case.evidence.flags)
        pairs.append((fired, case.false_negative >= 2))
    return pairs


def _difficulty_pairs(cases: list[Case]) -> list[tuple[int, int]]:
    return [
        (case.evidence.difficulty_prior.score, case.difficulty)
        for case in cases
        if case.difficulty is not None
    ]


def score(cases: list[Case]) -> Report:
    names = sorted({flag.name for case in cases for flag in case.evidence.flags})
    halves: dict[str, dict[str, BinaryScore | OrdinalScore]] = {}
    for half in ("a", "b"):
        part = [case for case in cases if half_of(case.instance_id) == half]
        halves[half] = {
            "tests_flag": binary_score(_tests_pairs(part)),
            "difficulty_prior": ordinal_score(_difficulty_pairs(part)),
        }
    return Report(
        tests_flag=binary_score(_tests_pairs(cases)),
        difficulty_prior=ordinal_score(_difficulty_pairs(cases)),
        per_flag={name: binary_score(_tests_pairs(cases, name)) for name in names},
        halves=halves,
    )

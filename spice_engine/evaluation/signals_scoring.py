"""Score the evidence extractor against Agentless-style human labels of SWE-bench issues."""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel, Field

from spice_engine.errors import InputError
from spice_engine.evaluation.metrics import binary_prf
from spice_engine.issue_signals import IssueSignals, extract_signals
from spice_engine.jsonl import instances
from spice_engine.models import CandidateSolution

REPRODUCTION_COLUMN = "description quality"
SOLUTION_COLUMN = "solution in description"
MISLEADING = "Misleading"


class BinaryScore(BaseModel):
    """Precision, recall and F1 of one binary signal, over n labeled issues."""

    precision: float
    recall: float
    f1: float
    n: int
    positives: int = 0
    """Human-labeled positives among the n."""
    extra: dict[str, object] = Field(default_factory=dict, exclude=True)
    """Notes printed by the CLI and written next to the scores (e.g. misleading fixes)."""

    def report(self) -> dict[str, object]:
        return {**self.model_dump(), **self.extra}


def _gold_reproduction(v: str) -> bool | None:
    return v.startswith("Contains") if v else None


def _gold_solution(v: str) -> bool | None:
    if not v or v == MISLEADING:
        return None  # a wrong suggestion is neither "a fix" nor "no fix": scored separately
    return v != "No solution"


def _gold_location(v: str) -> bool | None:
    return (v != "None") if v else None


# signal name -> (gold column, gold value -> bool | None, prediction from the signals)
SIGNALS: dict[str, tuple[str, Callable[[str], bool | None], Callable[[IssueSignals], bool]]] = {
    "candidate_solution": (
        SOLUTION_COLUMN,
        _gold_solution,
        lambda s: s.candidate_solution != CandidateSolution.NONE,
    ),
    "reproduction": (
        REPRODUCTION_COLUMN,
        _gold_reproduction,
        lambda s: s.reproduction in ("full", "partial"),
    ),
    "file_localization": (
        "file location",
        _gold_location,
        lambda s: s.localization.file != "none",
    ),
    "function_localization": (
        "function location",
        _gold_location,
        lambda s: s.localization.function != "none",
    ),
    "line_localization": (
        "line location",
        _gold_location,
        lambda s: s.localization.line != "none",
    ),
}


def read_instances(path: Path) -> dict[str, dict[str, object]]:
    """SWE-bench instances (JSONL) keyed by instance_id."""
    out: dict[str, dict[str, object]] = {}
    for row in instances(path):
        out[str(row["instance_id"])] = row
    return out


def read_agentless_labels(path: Path) -> dict[str, dict[str, str]]:
    """Agentless classification rows keyed by instance_id."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if rows and "instance_id" not in rows[0]:
        raise InputError(f"{path}: no instance_id column")
    return {r["instance_id"]: {k: (v or "").strip() for k, v in r.items()} for r in rows}


def title_and_body(problem_statement: str) -> tuple[str, str]:
    """SWE-bench joins title and body: the first line is the title."""
    title, _, body = problem_statement.partition("\n")
    return title, body


def signals_for(
    instances: dict[str, dict[str, object]], ids: Iterable[str], use_patch: bool = True
) -> dict[str, IssueSignals]:
    """Signals per instance; with `use_patch`, localization is judged against the gold patch."""
    out = {}
    for iid in ids:
        title, body = title_and_body(str(instances[iid].get("problem_statement") or ""))
        patch = str(instances[iid].get("patch") or "") if use_patch else ""
        out[iid] = extract_signals(title, body, fix_patch=patch or None)
    return out


def half_of(instance_id: str) -> int:
    """A fixed split of instances in two halves (by hash), for tune-on-one, report-on-other."""
    return hashlib.sha256(instance_id.encode()).digest()[0] & 1


def score_signals(
    signals: dict[str, IssueSignals], gold: dict[str, dict[str, str]]
) -> dict[str, BinaryScore]:
    """Per signal P/R/F1 on the labeled instances we have signals for.

    Issues whose suggested fix humans judged "Misleading" are left out of the candidate-solution
    binary; how many of them we flag as a fix is reported in that score's `misleading` note.
    """
    result: dict[str, BinaryScore] = {}
    for name, (column, to_gold, predict) in SIGNALS.items():
        truth: list[bool] = []
        pred: list[bool] = []
        for iid, sig in signals.items():
            label = to_gold(gold.get(iid, {}).get(column, ""))
            if label is None:
                continue
            truth.append(label)
            pred.append(predict(sig))
        if not truth:
            continue  # a labels file may carry only some columns: nothing to score here
        p, r, f = binary_prf(truth, pred)
        result[name] = BinaryScore(precision=p, recall=r, f1=f, n=len(truth), positives=sum(truth))
    misleading = [i for i in signals if gold.get(i, {}).get(SOLUTION_COLUMN) == MISLEADING]
    flagged = [i for i in misleading if signals[i].candidate_solution != CandidateSolution.NONE]
    if "candidate_solution" in result:
        result["candidate_solution"].extra["misleading"] = {
            "n": len(misleading),
            "detected_as_fix": len(flagged),
        }
    return result

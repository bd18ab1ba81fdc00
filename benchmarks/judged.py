"""Survivors judged by hand (`judged_survivors.jsonl`), held against what a run shows: the
precision of what is shown as a wrong fix, whether each comment's example is genuine, and
which shown survivors nobody has judged yet (to judge, then add to the file).

A judgement names its survivor by instance, path, line and change, so it holds for any run
that makes the same mutant. *genuine*: wrong on input the issue is about; *edge*: wrong only
on other input, or only as a spurious warning; *irrelevant*: no behaviour a user could see.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from spice_engine.strength.result import MutantOutcome, TestStrength

JUDGED = Path(__file__).with_name("judged_survivors.jsonl")
Key = tuple[str, str, int, str]


def judgements(path: Path = JUDGED) -> dict[Key, str]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["id"], r["path"], r["line"], r["change"]): r["judged"] for r in rows}


def _key(iid: str, m: MutantOutcome) -> Key:
    return (iid, m.path, m.line, m.change)


def _precision(counts: Counter[str]) -> str:
    judged = sum(counts.values())
    if not judged:
        return "none judged"
    edge = (counts["genuine"] + counts["edge"]) / judged
    strict = counts["genuine"] / judged
    return (
        f"{judged} judged: genuine {counts['genuine']}, edge {counts['edge']}, irrelevant "
        f"{counts['irrelevant']}; precision {edge:.2f} counting edge, {strict:.2f} genuine only"
    )


def report(results: dict[str, TestStrength], path: Path = JUDGED) -> None:
    """Prints, for the instances of `results`, what the hand judgements say of its shown
    survivors and examples, and lists the shown ones not judged yet."""
    known = judgements(path)
    shown, examples, held = Counter[str](), Counter[str](), Counter[str]()
    unjudged: list[str] = []
    for iid, strength in results.items():
        top = strength.headline
        for m in strength.survivors:
            judged = known.get(_key(iid, m))
            if judged is None:
                if m.shown:
                    unjudged.append(f"{iid} {m.path}:{m.line} {m.change}")
                continue
            (shown if m.shown else held)[judged] += 1
            if m is top:
                examples[judged] += 1
    print(f"\nshown as a wrong fix: {_precision(shown)}")
    print(f"the examples the comments show: {_precision(examples)}")
    lost = ", ".join(f"{kind} {held[kind]}" for kind in ("genuine", "edge", "irrelevant"))
    print(f"held back (not shown), judged: {sum(held.values())}: {lost}")
    for line in unjudged:
        print(f"  shown, not judged yet: {line}")

"""Time evidence extraction over the development instances, next to a naive regex baseline.

    .venv/bin/python benchmarks/signals_speed.py [--instances FILE] [--gold FILE]

Both run in this process, pinned to one core where the OS allows it. The baseline is the kind
of check one writes in five minutes (a fence or `>>>` = reproduction, a `.py` name = file
location, `name()` = function location, "fix"/"should"/"patch" = candidate solution); its F1 is
printed next to ours when labels are given.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path

from spice_engine.evaluation.metrics import binary_prf
from spice_engine.evaluation.signals_scoring import (
    SIGNALS,
    read_agentless_labels,
    read_instances,
    signals_for,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "swebench"
NAIVE = {
    "candidate_solution": re.compile(r"\b(?:fix|should|patch|solution)\b", re.I),
    "reproduction": re.compile(r"```|>>>"),
    "file_localization": re.compile(r"\b[\w/]+\.py\b"),
    "function_localization": re.compile(r"\b\w+\(\)"),
}


def naive(problem_statements: dict[str, str]) -> dict[str, dict[str, bool]]:
    return {
        iid: {name: bool(rx.search(text)) for name, rx in NAIVE.items()}
        for iid, text in problem_statements.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=Path, default=DATA / "instances.jsonl")
    parser.add_argument("--gold", type=Path, default=DATA / "labels_agentless.csv")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    instances = read_instances(args.instances)
    texts = {i: str(r.get("problem_statement") or "") for i, r in instances.items()}

    started = time.perf_counter()
    baseline = naive(texts)
    t_naive = time.perf_counter() - started
    started = time.perf_counter()
    text_only = signals_for(instances, list(instances), use_patch=False)
    t_text = time.perf_counter() - started
    started = time.perf_counter()
    with_fix = signals_for(instances, list(instances), use_patch=True)
    t_fix = time.perf_counter() - started

    n = len(instances)
    print(f"instances: {n} (one core)")
    print(f"naive regex baseline        {t_naive:7.3f} s")
    print(f"signals, issue text only    {t_text:7.3f} s  ({1000 * t_text / n:.2f} ms/issue)")
    print(f"signals, with the gold patch {t_fix:6.3f} s  ({1000 * t_fix / n:.2f} ms/issue)")
    print(f"target: < 5 s -> {'met' if max(t_text, t_fix) < 5 else 'NOT met'}")
    if not args.gold.is_file():
        return
    gold = read_agentless_labels(args.gold)
    print(
        f"\nF1 on {sum(i in gold for i in instances)} labeled issues: naive / text only / with patch"
    )
    for name, (column, to_gold, predict) in SIGNALS.items():
        if name not in NAIVE:
            continue
        rows = [(i, to_gold(gold[i][column])) for i in instances if i in gold]
        rows = [(i, g) for i, g in rows if g is not None]
        truth = [g for _, g in rows]
        f_naive = binary_prf(truth, [baseline[i][name] for i, _ in rows])[2]
        f_text = binary_prf(truth, [predict(text_only[i]) for i, _ in rows])[2]
        f_fix = binary_prf(truth, [predict(with_fix[i]) for i, _ in rows])[2]
        print(f"  {name:24s} {f_naive:.3f} / {f_text:.3f} / {f_fix:.3f}")


if __name__ == "__main__":
    main()

"""The hand judgements the strength benchmark holds its runs against
(`benchmarks/judged_survivors.jsonl`): one judgement per survivor, each one of the three kinds,
each naming a survivor a run can make (a change as the engine writes it, a line in a fix)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _judged_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("judged", BENCHMARKS / "judged.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_survivor_is_judged_once_as_one_of_the_three_kinds() -> None:
    rows = [json.loads(line) for line in (BENCHMARKS / "judged_survivors.jsonl").open()]
    keys = [(r["id"], r["path"], r["line"], r["change"]) for r in rows]
    assert len(rows) >= 30 and len(set(keys)) == len(keys)
    assert {r["judged"] for r in rows} == {"genuine", "edge", "irrelevant"}
    assert all((r["why"].strip() and "→" in r["change"]) or r["change"] for r in rows)
    assert all(r["line"] > 0 and r["path"].endswith(".py") for r in rows)
    assert _judged_module().judgements() == {
        k: r["judged"] for k, r in zip(keys, rows, strict=True)
    }

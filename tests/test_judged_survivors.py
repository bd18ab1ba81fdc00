"""The hand judgements the strength benchmark holds its runs against
(`benchmarks/judged_survivors.jsonl`): one judgement per survivor, each one of the three kinds,
each naming a survivor a run can make (a change as the engine writes it, a line in a fix), in
Python or another language the row names."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from spice_engine.strength.result import MutantOutcome, TestStrength

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
LANGUAGES = {"python", "go", "rust", "java", "javascript", "cpp", "c"}


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
    assert all(r["line"] > 0 for r in rows)
    # A row without a language is Python's; the others name theirs.
    assert all(r["path"].endswith(".py") for r in rows if "language" not in r)
    assert {r.get("language", "python") for r in rows} <= LANGUAGES
    module = _judged_module()
    assert module.judgements() == {k: r["judged"] for k, r in zip(keys, rows, strict=True)}
    assert set(module.languages().values()) <= LANGUAGES


def _row(iid: str, line: int, judged: str, language: str | None) -> dict[str, object]:
    row = {"id": iid, "path": "a.js", "line": line, "change": "`1` → `2`", "judged": judged}
    return row | ({"language": language} if language else {}) | {"why": "x"}


def test_the_report_gives_precision_per_language_and_the_headline_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def survivor(line: int) -> MutantOutcome:
        change = "`1` → `2`"
        return MutantOutcome(path="a.js", line=line, operator="constant", change=change, diff="")

    rows = [
        _row("a-1", 1, "genuine", "javascript"),
        _row("a-1", 2, "edge", "javascript"),
        _row("p-1", 1, "irrelevant", None),  # no language: Python's
    ]
    judged = tmp_path / "judged.jsonl"
    judged.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = {
        "a-1": TestStrength(status="measured", mutants=[survivor(1), survivor(2), survivor(3)]),
        "p-1": TestStrength(status="measured", mutants=[survivor(1)]),
    }
    _judged_module().report(runs, judged)
    out = capsys.readouterr().out
    assert "headline genuine on 1 of 2 instances that show one" in out
    assert "javascript: 2 judged: genuine 1, edge 1, irrelevant 0" in out
    assert "0.50 genuine only; headline genuine on 1 of 1 instances" in out
    assert "python: 1 judged: genuine 0, edge 0, irrelevant 1" in out
    assert "shown, not judged yet: a-1 a.js:3" in out


def test_as_now_holds_what_nothing_classed_and_keeps_what_a_trace_saw_entered() -> None:
    """An older run re-read under today's rules: a compiled survivor with neither a probe's nor
    a trace's word on its line is held; one whose traced function the tests entered (said in
    its reason) counts as executed and stays shown; Python's are left to its own rules."""

    def survivor(line: int, reason: str = "") -> MutantOutcome:
        return MutantOutcome(
            path="a.go",
            line=line,
            operator="relational",
            change="`<` → `<=`",
            diff="",
            verdict="survived",
            reason=reason,
            rank=line,
        )

    from spice_engine.strength.traced import UNEXERCISED

    traced = UNEXERCISED.format(function="f", calls=2)  # as the traced run writes it
    run = TestStrength(status="measured", mutants=[survivor(1), survivor(2, traced)])
    assert [m.shown for m in run.mutants] == [True, True]
    now = _judged_module().as_now(run, "", "Go")
    assert [m.shown for m in now.mutants] == [False, True]
    assert now.mutants[1].reached == "executed_unchecked" and now.headline is now.mutants[1]
    assert run.mutants[0].shown  # the stored run is not changed
    python = _judged_module().as_now(run, "", "python")
    assert [m.shown for m in python.mutants] == [True, True]


def test_as_now_on_rows_the_pipeline_wrote() -> None:
    """ripgrep's stored run (`strength_rust_2026-12-04c.jsonl`, written by `spice
    test-strength`): 2209's bound, shown though no probe reached its line, is held; 1642's
    `1` → `2` on line 680, whose traced function the tests entered, stays shown, executed."""
    judged = _judged_module()
    path = BENCHMARKS / "results" / "strength_rust_2026-12-04c.jsonl"
    rows = {r["instance_id"]: r for r in map(json.loads, path.open())}
    got = {}
    for iid in ("BurntSushi__ripgrep-2209", "BurntSushi__ripgrep-1642"):
        row = rows[iid]
        stored = TestStrength.model_validate(row["spice"]["test_strength"])
        now = judged.as_now(stored, row["problem_statement"], row["language"])
        pairs = zip(stored.mutants, now.mutants, strict=True)
        got[iid] = {(m.line, m.change): (a.shown, m.shown, m.reached) for a, m in pairs}
    assert got["BurntSushi__ripgrep-2209"][(480, "`>= range.end` → `> range.end`")][:2] == (
        True,
        False,
    )
    assert got["BurntSushi__ripgrep-1642"][(680, "`1` → `2`")] == (True, True, "executed_unchecked")

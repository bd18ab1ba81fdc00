"""Survivors judged by hand (`judged_survivors.jsonl`), held against what a run shows: the
precision of what is shown as a wrong fix, overall and per language, whether each comment's
example (the headline) is genuine, and which shown survivors nobody has judged yet (to judge,
then add to the file).

A judgement names its survivor by instance, path, line and change, so it holds for any run
that makes the same mutant. *genuine*: wrong on input the issue is about; *edge*: wrong only
on other input, or only as a spurious warning; *irrelevant*: no behaviour a user could see.
A row names its `language` (none: python); `shown: false` marks one judged while held back.

    .venv/bin/python benchmarks/judged.py OUT.jsonl ...   (rows `spice test-strength` wrote)
    .venv/bin/python benchmarks/judged.py --as-now OUT.jsonl ...   (re-read under today's rules)
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from spice_engine.strength.result import MutantOutcome, TestStrength

JUDGED = Path(__file__).with_name("judged_survivors.jsonl")
Key = tuple[str, str, int, str]
NO_TEST_MAKES = "decision probe: no judged test makes `"
"""How an older run's kept-assignment probe said an assignment never changed its target."""


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def judgements(path: Path = JUDGED) -> dict[Key, str]:
    return {(r["id"], r["path"], r["line"], r["change"]): r["judged"] for r in _rows(path)}


def languages(path: Path = JUDGED) -> dict[str, str]:
    """Instance id -> the language its judgements name (python when they name none)."""
    return {str(r["id"]): str(r.get("language", "python")) for r in _rows(path)}


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


def _headlines(counts: Counter[str]) -> str:
    judged = sum(counts.values())
    return f"headline genuine on {counts['genuine']} of {judged} instances that show one"


def report(results: dict[str, TestStrength], path: Path = JUDGED) -> None:
    """Prints, for the instances of `results`, what the hand judgements say of its shown
    survivors and headlines, per language and in all, and lists the shown ones not judged
    yet."""
    known, language = judgements(path), languages(path)
    shown: defaultdict[str, Counter[str]] = defaultdict(Counter)
    examples: defaultdict[str, Counter[str]] = defaultdict(Counter)
    held = Counter[str]()
    unjudged: list[str] = []
    for iid, strength in results.items():
        lang, top = language.get(iid, "python"), strength.headline
        for m in strength.survivors:
            judged = known.get(_key(iid, m))
            if judged is None:
                if m.shown:
                    unjudged.append(f"{iid} {m.path}:{m.line} {m.change}")
                continue
            (shown[lang] if m.shown else held)[judged] += 1
            if m is top:
                examples[lang][judged] += 1
    every, tops = sum(shown.values(), Counter[str]()), sum(examples.values(), Counter[str]())
    print(f"\nshown as a wrong fix: {_precision(every)}; {_headlines(tops)}")
    for lang in sorted(shown):
        print(f"  {lang}: {_precision(shown[lang])}; {_headlines(examples[lang])}")
    lost = ", ".join(f"{kind} {held[kind]}" for kind in ("genuine", "edge", "irrelevant"))
    print(f"held back (not shown), judged: {sum(held.values())}: {lost}")
    for line in unjudged:
        print(f"  shown, not judged yet: {line}")


def as_now(strength: TestStrength, problem: str, language: str) -> TestStrength:
    """What a run written by an older pipeline shows under today's rules that read only what
    it stored: ranked again, a survivor nothing classed held (a traced one whose function
    the tests entered, said in its reason, counted as executed), and an assignment left out
    that its kept probe saw never change its target held. Rules that need a new run (a
    mutant no longer made, a bound, a trace) are not applied: re-run for those."""
    from spice_engine.strength.line_probe import hold_unknown
    from spice_engine.strength.rank import rank
    from spice_engine.strength.traced import UNTRIED

    again = strength.model_copy(deep=True)
    for m in again.mutants:
        if not m.through and (called := re.match(r"a call left out through `([^`]+)`", m.reason)):
            m.through = called.group(1)  # written before `through` was kept
        if m.reached is None and UNTRIED in m.reason:
            m.reached = "executed_unchecked"
        if (
            m.reason.startswith(NO_TEST_MAKES)
            and " change what `" in m.reason
            and not m.unconfirmed
        ):
            m.unconfirmed = "kept-assignment probe: never changed its target (read again)"
    if language.lower() not in ("python", "javascript"):  # no differential run of our driver
        hold_unknown(dict(enumerate(again.mutants)))
    rank(again.mutants, problem)
    return again


def main(args: list[str]) -> None:
    """The report for the rows of `spice test-strength` outputs (`--as-now`: each re-read
    under today's rules, `as_now`)."""
    now = "--as-now" in args
    results: dict[str, TestStrength] = {}
    for out in (a for a in args if a != "--as-now"):
        for row in _rows(Path(out)):
            strength = (row.get("spice") or {}).get("test_strength")
            if strength:
                got = TestStrength.model_validate(strength)
                problem = str(row.get("problem_statement") or "")
                language = str(row.get("language") or "python")
                results[str(row["instance_id"])] = as_now(got, problem, language) if now else got
    report(results)


if __name__ == "__main__":
    main(sys.argv[1:])

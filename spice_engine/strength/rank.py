"""The telling survivor first: survivors ranked by what a reviewer cares about, and each one's
line classed as executed by no judged test or executed but not checked.

A survivor alone is not news (STING, 2025, found one in 77% of SWE-bench Verified instances);
one in code the fail-to-pass tests run, in a function the issue names, that changes behaviour
rather than crashing, is.
"""

from __future__ import annotations

import re

from spice_engine.strength.result import MutantOutcome, Verdict, evidence


def named_functions(problem: str) -> set[str]:
    """Identifiers the issue text names (a function it names is what it is about)."""
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", problem))


def classify(
    outcomes: dict[int, MutantOutcome],
    reached: dict[str, set[int]],
    f2p: list[str],
    switchable: set[int],
    together: dict[int, set[int]] | None = None,
) -> None:
    """Each survivor's `reached` and `by_fail_to_pass`: its code is executed when a judged test
    executed any mutant of the same code (`together`: key -> those keys; by default the
    mutants of its line, as the mutants' switches record them)."""
    by_line: dict[tuple[str, int], set[int]] = {}
    for key, m in outcomes.items():
        by_line.setdefault((m.path, m.line), set()).add(key)
    any_test = set().union(*reached.values()) if reached else set()
    fail_to_pass = set().union(*(reached.get(t, set()) for t in f2p)) if f2p else set()
    for key, m in outcomes.items():
        if m.verdict != Verdict.SURVIVED:
            continue
        line = together[key] if together and key in together else by_line[(m.path, m.line)]
        if not reached or not line & switchable:
            continue  # no probe here (code run at import, another language): not known
        m.reached = "executed_unchecked" if line & any_test else "not_executed"
        m.by_fail_to_pass = bool(line & fail_to_pass)


def rank(outcomes: list[MutantOutcome], problem: str) -> None:
    """Survivors' `rank` (1 = the most telling); every other mutant's is 0.

    Among survivors alike in where they are and what was seen of them, one on a line whose
    other mutants survive too comes first: nothing on that line is checked, while a lone
    survivor beside killed siblings is one the line's checks cannot see, more often a variant
    no caller tells apart (jq-3161's buffer size `4` -> `5`, five siblings killed, against its
    hex decoding line, where three of four survive); one with no sibling sits between."""
    names = named_functions(problem)
    killed = _killed_share(outcomes)

    def key(m: MutantOutcome) -> tuple[int, int, int, int, int, int, float, int, str, int]:
        return (
            m.difference != "issue",  # wrong on the issue's own example: the news itself
            # then one a caller was seen to get otherwise (a traced survivor's line is not
            # probed: whether a FAIL_TO_PASS test runs it is not known)
            m.difference is None,
            not m.by_fail_to_pass,
            m.function not in names,
            {"executed_unchecked": 0, "not_executed": 1}.get(m.reached or "", 2),
            {"tests": 0, "nearby": 1}.get(m.difference or "", 2),
            killed.get(id(m), 0.5),
            evidence(m.operator),
            m.path,
            m.line,
        )

    survivors = sorted((m for m in outcomes if m.verdict == Verdict.SURVIVED), key=key)
    for m in outcomes:
        m.rank = 0
    for n, m in enumerate(survivors, 1):
        m.rank = n


def _killed_share(outcomes: list[MutantOutcome]) -> dict[int, float]:
    """Each judged mutant's share of the other judged mutants of its line that were killed;
    a mutant alone on its line, with nothing beside it to tell, gets the middle (jq-3161's
    lone `0` → `1` in a first octet's initial value used to rank as if every sibling had
    survived, above its hex decoding line's survivors)."""
    judged: dict[tuple[str, int], list[MutantOutcome]] = {}
    for m in outcomes:
        if m.verdict in (Verdict.KILLED, Verdict.SURVIVED):
            judged.setdefault((m.path, m.line), []).append(m)
    share: dict[int, float] = {}
    for line in judged.values():
        for m in line:
            others = [o.verdict == Verdict.KILLED for o in line if o is not m]
            share[id(m)] = sum(others) / len(others) if others else 0.5
    return share


def unconfirmed(m: MutantOutcome) -> str:
    """Why a Python survivor has nothing showing that a caller could see it ("" when it has:
    its differential run saw it differ, or no judged test executes its line)."""
    if m.difference is not None or m.reached == "not_executed":
        return ""
    if m.reached is None:
        return "code run at import: no call to watch, and its module not seen to hold otherwise"
    return m.reason or "no differential run (the time budget)"

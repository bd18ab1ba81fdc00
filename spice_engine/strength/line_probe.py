"""Which judged tests execute each survivor's line, where no plugin of ours watches the tests
(every language but Python under pytest): what tells a wrong fix the tests run but do not
check from code no test runs, which is no claim about behaviour (`untested_line`).

A line a killed mutant changed is executed by its killer. Any other survivor's line is probed:
the fixed file with a statement that fails the test running it before the statement holding
the line (the language's `LineProbes`, spice_engine.langs.line_probes), its tests run whole
as a mutant's are. A judged test that passed with the fix and fails (or goes missing) under the
probe executes the line; every judged test passing again means none does. A run that could not
say (cut off, nothing built, a probe the language cannot place) leaves the line unknown, as it
was: a probe errs only towards "executed", which shows a survivor, never hides one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spice_engine.langs.capabilities import line_probe
from spice_engine.strength.choose import Choice
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.verdicts import Verdicts
from spice_engine.validate.outcomes import passed

MAX_PROBES = 12
"""Lines probed at most in one measurement (each probe is one whole run), the best-ranked first."""
Line = tuple[str, int]


@dataclass
class Probed:
    """What the probes found, in the shape the survivors are classed from (rank.classify)."""

    reached: dict[str, set[int]]
    """Judged test -> the mutants whose line it executes."""
    known: set[int] = field(default_factory=set)
    """Mutants whose line was classed (executed by the tests `reached` says, or by none)."""
    unprobed: int = 0
    """Survivors' lines left unknown by the budget or `MAX_PROBES`."""


def probe_lines(
    runner: Runner, verdicts: Verdicts, choice: Choice, fail_to_pass: list[str]
) -> Probed:
    """The judged tests executing each survivor's line, from its killed neighbours and probes."""
    judged = list(verdicts.judged)
    found = Probed(reached={t: set() for t in judged})
    by_line: dict[Line, set[int]] = {}
    for key, m in verdicts.done.items():
        by_line.setdefault((m.path, m.line), set()).add(key)
    for keys in by_line.values():
        killers = {verdicts.done[k].killed_by for k in keys} - {None}
        for test in killers & set(found.reached):
            found.reached[str(test)] |= keys
        if killers & set(fail_to_pass):
            found.known |= keys  # executed, and by what the issue is about: nothing to probe
    start = runner.runs
    for line in _survivor_lines(verdicts.done, found.known):
        if runner.left() <= 0 or runner.runs - start >= MAX_PROBES:
            found.unprobed += 1
            continue
        executing = _probe(runner, choice, line, judged)
        if executing is None:
            continue
        keys = by_line[line]
        found.known |= keys
        for test in executing:
            found.reached[test] |= keys
    return found


def _survivor_lines(done: dict[int, MutantOutcome], known: set[int]) -> list[Line]:
    """Lines with a survivor not yet classed, the best-ranked survivor's first."""
    best: dict[Line, int] = {}
    for key, m in done.items():
        if m.verdict != Verdict.SURVIVED or key in known:
            continue
        line = (m.path, m.line)
        best[line] = min(best.get(line, m.rank or 10**6), m.rank or 10**6)
    return sorted(best, key=lambda line: (best[line], line))


def _probe(runner: Runner, choice: Choice, line: Line, judged: list[str]) -> list[str] | None:
    """The judged tests executing `line` (None: the probe could not say)."""
    path, number = line
    session = runner.session
    probed = line_probe(session.language, path, choice.originals[path], number)
    if probed is None:
        return None
    session.tree.put(path, probed)
    try:
        done = runner.outcomes(judged, whole_files=True)
    finally:
        session.tree.restore(path)
    if done.killed or not done.outcomes:
        return None  # cut off, or nothing built: not known
    control = runner.control(judged)
    return [t for t in judged if passed(control, t) and not passed(done.outcomes, t)]

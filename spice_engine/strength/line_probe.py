"""Which judged tests execute each survivor's line, where no plugin of ours watches the tests
(every language but Python under pytest): what tells a wrong fix the tests run but do not
check from code no test runs, which is no claim about behaviour (`untested_line`).

Each survivor is probed: the fixed file with a statement that fails the test running it before
the statement holding the mutated token, or in braces around a lone branch (the language's
`LineProbes`, spice_engine.langs.line_probes), its tests run whole as a mutant's are. Mutants
whose probe goes to the same place are classed together: a killed one there is executed by its
killer, without a run. A judged test that passed with the fix and fails (or goes missing) under
the probe executes that code; a run the probe made hang (stopped at its bound, not by the
budget) was reached by some test; every judged test passing again means none does. A run that
could not say (the budget, nothing built, no place for a probe) leaves the survivor unknown, as
it was: a probe errs only towards "executed", which shows a survivor, never hides one.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from spice_engine.langs.capabilities import line_probe
from spice_engine.runs.session import Run
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.verdicts import Verdicts
from spice_engine.validate.outcomes import passed

MAX_PROBES = 12
"""Probes run at most in one measurement (each one whole run), the best-ranked survivor's first."""


@dataclass
class Probed:
    """What the probes found, in the shape the survivors are classed from (rank.classify)."""

    reached: dict[str, set[int]]
    """Judged test -> the mutants whose code it executes."""
    known: set[int] = field(default_factory=set)
    """Mutants whose code was classed (executed by the tests `reached` says, or by none)."""
    unprobed: int = 0
    """Probes the budget or `MAX_PROBES` left unrun (their survivors unknown)."""
    together: dict[int, set[int]] = field(default_factory=dict)
    """Mutant -> the mutants whose probe goes where its own goes (its own included): what is
    classed together, finer than a line (`if (!s) return 0`: the condition and the return)."""


def probe_lines(
    runner: Runner,
    verdicts: Verdicts,
    choice: Choice,
    fail_to_pass: list[str],
    settled: AbstractSet[int] = frozenset(),
) -> Probed:
    """The judged tests executing each survivor's code, from its killed neighbours (mutants
    whose probe would go where its own goes) and probes; no probe for a place whose survivors
    are all `settled` (their traced calls already said)."""
    judged = list(verdicts.judged)
    found = Probed(reached={t: set() for t in judged})
    places = _places(runner, verdicts.done, choice)
    found.together = {k: keys for keys in places.values() for k in keys}
    for keys in places.values():
        killers = {verdicts.done[k].killed_by for k in keys} - {None}
        for test in killers & set(found.reached):
            found.reached[str(test)] |= keys
        if killers & set(fail_to_pass):
            found.known |= keys  # executed, and by what the issue is about: nothing to probe
    start = runner.runs
    for (path, probed), keys in _by_rank(places, verdicts.done, found.known | settled):
        if runner.left() <= 0 or runner.runs - start >= MAX_PROBES:
            found.unprobed += 1
            continue
        executing = _probe(runner, path, probed, judged)
        if executing is None:
            continue
        found.known |= keys
        for test in executing:
            found.reached.setdefault(test, set()).update(keys)
    return found


HUNG = "(a run the probe made hang)"
"""Who executes a probe whose run was stopped at its bound: some test, not known which."""
Place = tuple[str, str]
"""(path, the fixed file with a probe): where a mutant's probe goes."""


def _places(
    runner: Runner, done: dict[int, MutantOutcome], choice: Choice
) -> dict[Place, set[int]]:
    """The judged mutants grouped by where their probe goes (none: no probe can go there)."""
    language = runner.session.language
    places: dict[Place, set[int]] = {}
    for c in choice.chosen:
        m = done.get(c.key)
        if m is None or m.verdict not in (Verdict.SURVIVED, Verdict.KILLED):
            continue
        fixed = choice.originals[c.path]
        at = mutated_at(fixed, c)
        probed = line_probe(language, c.path, fixed, at)
        if probed is not None:
            places.setdefault((c.path, probed), set()).add(c.key)
    return places


def mutated_at(fixed: str, c: Chosen) -> int:
    """The first byte of `fixed` (encoded) the mutant `c` changes."""
    return _first_change(fixed.encode(), c.source.encode())


def _first_change(fixed: bytes, mutant: bytes) -> int:
    pairs = zip(fixed, mutant, strict=False)
    return next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(fixed), len(mutant)))


def _by_rank(
    places: dict[Place, set[int]], done: dict[int, MutantOutcome], known: set[int]
) -> list[tuple[Place, set[int]]]:
    """Places holding a survivor not yet classed, the best-ranked survivor's first."""

    def best(keys: set[int]) -> int:
        ranks = [done[k].rank or 10**6 for k in keys if done[k].verdict == Verdict.SURVIVED]
        return min(ranks, default=0)

    def unknown(keys: set[int]) -> bool:
        return not {k for k in keys if done[k].verdict == Verdict.SURVIVED} <= known

    open_ = [(p, keys) for p, keys in places.items() if best(keys) and unknown(keys)]
    return sorted(open_, key=lambda x: (best(x[1]), x[0][0]))


def _probe(runner: Runner, path: str, probed: str, judged: list[str]) -> list[str] | None:
    """The judged tests executing the probed code (None: the run could not say)."""
    done = probed_run(runner, path, probed, judged)
    if done.killed == "timeout" and runner.left() > 0:
        # Stopped at the bound, not by the budget: the probe changed what ran (a panic in a
        # worker thread left the others waiting: ripgrep-1642's), so some test reached it.
        return [HUNG]
    return failing(runner, done, judged)


def probed_run(runner: Runner, path: str, probed: str, judged: list[str]) -> Run:
    """One whole run of `judged` with `path` holding `probed`, the fix put back after."""
    tree = runner.session.tree
    tree.put(path, probed)
    try:
        return runner.outcomes(judged, whole_files=True)
    finally:
        tree.restore(path)


def failing(runner: Runner, done: Run, judged: list[str]) -> list[str] | None:
    """The judged tests passing with the fix that a probed run failed (None: the run could
    not say: cut off, hung, or nothing built)."""
    if done.killed or not done.outcomes:
        return None
    control = runner.control(judged)
    return [t for t in judged if passed(control, t) and not passed(done.outcomes, t)]


UNKNOWN_LINE = (
    "no probe said whether a judged test runs its line (the time budget, or no place for one), "
    "nor did a traced run see its function answer otherwise: not confirmed either way"
)


def hold_unknown(done: dict[int, MutantOutcome]) -> int:
    """Survivors nothing classed (no probe ran for their line, no trace saw their function) held
    as not confirmed either way, as Python's code run at import is: shown, they were a claim
    with no evidence under it (4 of 10 such judged genuine). How many were held."""
    held = 0
    for m in done.values():
        unknown = m.reached is None and m.difference is None and m.catching_test is None
        if m.verdict == Verdict.SURVIVED and unknown and not m.unconfirmed:
            m.unconfirmed, held = UNKNOWN_LINE, held + 1
    return held

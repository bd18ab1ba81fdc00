"""The differential run where our pytest plugin cannot load but our driver can run the test
command (a Python runner of the repository's own: sympy's `bin/test`;
spice_engine.langs.capabilities `DrivenRuns`): the survivors some judged test executes (the line
probes said so), best-ranked first, watched in one sandboxed run of the driver
(spice_engine.strength.watch_plugin) over the mutant schema, as the pytest plugin watches them
in its session. What it saw is kept exactly as a session's differential run is: a difference
shows the survivor, nothing seen on the tests' inputs nor next to them makes it equivalent, and
one it could not say of (or never reached: the budget) is held as unconfirmed.
"""

from __future__ import annotations

from pathlib import Path

from spice_engine.strength.choose import Choice, schema_sources
from spice_engine.strength.line_probe import HUNG
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.runs import WATCHERS, Runner, session_result
from spice_engine.strength.verdicts import NO_DIFFERENCE, Verdicts, differential_reason

WATCH_PLUGIN = "_spice_watch"
WATCH_SOURCE = Path(__file__).with_name("watch_plugin.py")
SHARE = 0.5
"""Of the budget left, what the watched run may take (the ablation and confirmations after)."""
FLOOR_S = 15.0
"""What the watched run takes at least, of all that is left: it is what shows or holds a
survivor, the hunk check after it a lesser claim (sympy-20154's two `.copy()` removals, the
issue's bug back, went unwatched with 16 s left of a 38 s budget, and 10 s of it unused)."""
MIN_S = 10.0


def watch_survivors(
    runner: Runner, verdicts: Verdicts, choice: Choice, reached: dict[str, set[int]]
) -> tuple[Verdicts, int]:
    """`verdicts` with the watched survivors' differential runs kept; and how many survivors a
    judged test executes were left unwatched (the budget). `reached`: judged test -> the
    mutants whose code it executes (the watched runs run only those tests, where the runner
    can choose)."""
    done = verdicts.done
    chosen = {c.key: c for c in choice.chosen if c.site.switchable and c.site.function}
    order = sorted(
        (k for k, m in done.items() if k in chosen and _watchable(m)), key=lambda k: done[k].rank
    )
    budget = watch_budget(runner.left())
    if not order or budget < MIN_S or runner.test_run_s is None:
        return verdicts, len(order)
    only = Choice([chosen[k] for k in order], 0, [], choice.originals, choice.lines)
    # The driver watches in `order`, the ranking's: it needs no hint of what comes late.
    observe = {str(k): {"path": chosen[k].path, "function": chosen[k].site.function} for k in order}
    reaching = sorted(t for t, keys in reached.items() if keys & set(order) and t != HUNG)
    settings = {
        "order": order,
        "observe": observe,
        "per_run_s": runner.test_run_s,
        "select": runner.session.driven_selection(reaching),
        "budget_s": budget - 5.0,
    }
    tree = runner.session.tree
    for path, text in schema_sources(only).items():
        tree.put(path, text)
    try:
        plugin = runner.session.plugin(WATCH_SOURCE, WATCH_PLUGIN, settings, WATCHERS, True)
        run = runner.driven(plugin, budget)
    finally:
        for path in choice.originals:
            tree.restore(path)
    seen = session_result(run).observed
    kept = dict(done)
    for key, observed in seen.items():
        m = kept.get(key)
        if m is None or m.verdict != Verdict.SURVIVED:
            continue
        if observed.differs is False:
            why = NO_DIFFERENCE.format(function=m.function, calls=observed.calls)
            kept[key] = m.model_copy(update={"verdict": Verdict.EQUIVALENT, "reason": why})
        else:
            update = {"difference": observed.seen, "difference_in": observed.where}
            kept[key] = m.model_copy(update=update | {"reason": differential_reason(observed)})
    return verdicts.model_copy(update={"done": kept}), len(set(order) - set(seen))


def watch_budget(left_s: float) -> float:
    """What the watched run may take of `left_s`: `SHARE` of it, at least `FLOOR_S`, and never
    the last second (the measure's end)."""
    left = left_s - 1.0
    return min(left, max(left * SHARE, FLOOR_S))


def _watchable(m: MutantOutcome) -> bool:
    """A survivor a judged test executes (no differential run for code no test runs), and
    one the issue's example has not already told from the fix."""
    return (
        m.verdict == Verdict.SURVIVED
        and m.reached == "executed_unchecked"
        and m.rank > 0
        and m.difference != "issue"
    )

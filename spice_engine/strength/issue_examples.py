"""The issue's own example as evidence: a survivor that changes what the reporter's example
prints is a wrong fix on the very input the issue is about, whatever the tests check, and
whether or not a judged test executes its line.

The example (spice_engine.langs.python_examples) runs in the sandbox, in the tree with the
mutant schema, under our driver (spice_engine.strength.examples_plugin): twice under the fix
(what it prints must not move between two runs), once under a decoy id no code reads (what it
prints must not move with the switch itself: a hostile example could print it), then under
each survivor, best-ranked first (and each mutant a differential run found no difference in),
within a share of the budget left. A survivor whose example prints otherwise than the fix is
marked `difference="issue"` with the statement and the first line of its output that differ;
one whose example prints the same is left as it was (the example may not reach its case:
nothing is proven equivalent by it).
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from spice_engine.langs.capabilities import issue_examples
from spice_engine.strength.choose import ID_STRIDE, Choice, Chosen, schema_sources
from spice_engine.strength.result import IssueExample, MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.verdicts import NO_DIFFERENCE, Verdicts
from spice_engine.validate.plugin_run import messages

EXAMPLES_PLUGIN = "_spice_examples"
EXAMPLES_SOURCE = Path(__file__).with_name("examples_plugin.py")
SHARE = 0.3
"""Of the budget left, what the example's runs may take (confirmations, differential runs and
the ablation come after)."""
FLOOR_S = 15.0
"""What the example's runs may take of a budget the mutants nearly spent (an import and a few
forks: seconds, for the best evidence there is)."""
MAX_MUTANTS = 16
"""Survivors the example is run under at most (best-ranked first)."""
UNOBSERVED = NO_DIFFERENCE.split("{", 1)[0]
"""How a differential run's "equivalent" begins (no proof: the example may still differ)."""
LINE = 160
"""What of a differing line is kept."""
PER_STATE_S = 60.0
"""A state's first limit; the driver lowers it to a few times the fix's own run."""
MOVES = "the issue's example prints something else on two runs of the fix: it says nothing"
UNFINISHED = "the issue's example did not run to its end under the fix: it says nothing"
READS_SWITCH = "the issue's example prints something else under an id no code reads: not trusted"


def run_examples(
    runner: Runner, verdicts: Verdicts, choice: Choice, problem: str
) -> tuple[Verdicts, str]:
    """`verdicts` with each survivor the issue's example tells from the fix marked so; and
    what stopped the examples from saying anything ("" when they ran, or there were none)."""
    session = runner.session
    snippets = issue_examples(session.language, problem, sorted(choice.originals))
    chosen = {c.key: c for c in choice.chosen if c.site.switchable}
    done = verdicts.done
    order = to_try(done, chosen)
    if not snippets or not order:
        return verdicts, ""
    left = runner.left()
    budget = min(left, max(left * SHARE, FLOOR_S))
    if budget < 5:
        return verdicts, "the issue's example not run (the time budget)"
    said, stopped = run_states(runner, choice, [chosen[k] for k in order], snippets, budget)
    if stopped:
        return verdicts, stopped
    fixed = said[None]
    kept = dict(done)
    for key in order:
        got = said.get(str(key))
        if got and got[0]["digest"] != fixed[0]["digest"]:
            kept[key] = told(done[key], fixed[0].get("statements"), got[0].get("statements"))
    return verdicts.model_copy(update={"done": kept}), ""


States = dict[str | None, list[dict[str, Any]]]
"""What each state (None: the fix; a mutant's id) printed: the driver's messages, in order."""


def run_states(
    runner: Runner,
    choice: Choice,
    mutants: list[Chosen],
    snippets: list[str],
    budget: float,
    keep: int = 500,
) -> tuple[States, str]:
    """`snippets` run by our driver under the fix twice, a decoy id no code reads, then each of
    `mutants` (switched on in the schema), within `budget` seconds; and why nothing can be
    concluded ("": the fix's two runs agree and the decoy's agrees with them)."""
    decoy = str(len(choice.originals) * ID_STRIDE + 1 + secrets.randbelow(ID_STRIDE))
    states: list[str | None] = [None, None, decoy, *(str(c.key) for c in mutants)]
    only = Choice(mutants, 0, [], choice.originals, choice.lines)
    tree = runner.session.tree
    for path, text in schema_sources(only).items():
        tree.put(path, text)
    try:
        said = driver_states(runner, snippets, states, budget, keep=keep)
    finally:
        for path in choice.originals:
            tree.restore(path)
    fixed = said.get(None, [])
    if len(fixed) < 2:
        return said, UNFINISHED
    if fixed[0]["digest"] != fixed[1]["digest"]:
        return said, MOVES
    if [m["digest"] for m in said.get(decoy, [])] != [fixed[0]["digest"]]:
        return said, READS_SWITCH
    return said, ""


def driver_states(
    runner: Runner,
    snippets: list[str],
    states: list[str | None],
    budget: float,
    preimport: bool = True,
    keep: int = 500,
) -> States:
    """What our driver printed running `snippets` in the tree as it is, once per state, within
    `budget` seconds. `preimport`: the snippets' imports made once before the states (False
    where what is imported is what the states differ in); `keep`: what of each statement's
    output comes back (its digest covers all of it)."""
    settings = {
        "snippets": snippets,
        "states": states,
        "per_state_s": PER_STATE_S,
        "budget_s": max(1.0, budget - 2.0),
        "preimport": preimport,
        "keep": keep,
    }
    plugin = runner.session.plugin(EXAMPLES_SOURCE, EXAMPLES_PLUGIN, settings, alone=True)
    run = runner.alone(plugin, budget)
    said: States = {}
    for message in messages(run.channel):
        state = message.get("state")
        if message.get("status") == "ok" and isinstance(message.get("digest"), str):
            said.setdefault(state, []).append(message)
    return said


def to_try(done: dict[int, MutantOutcome], among: Iterable[int]) -> list[int]:
    """The mutants of `among` an example is run under, `MAX_MUTANTS` at most: survivors
    best-ranked first, then those a differential run found no difference in (on the tests'
    inputs and next to them: not a proof, and the issue's input may differ)."""
    keys = set(among)
    return sorted(
        (k for k, m in done.items() if k in keys and unproven(m)),
        key=lambda k: (done[k].verdict != Verdict.SURVIVED, done[k].rank, k),
    )[:MAX_MUTANTS]


def unproven(m: MutantOutcome) -> bool:
    if m.verdict == Verdict.SURVIVED:
        return True
    return m.verdict == Verdict.EQUIVALENT and m.reason.startswith(UNOBSERVED)


def told(m: MutantOutcome, fix: Any, survivor: Any, near: Collection[str] = ()) -> MutantOutcome:
    """`m` marked as told apart by the issue's example, with the first statement whose output
    differs (as far as the messages keep it); `near`: the statements that are neighbours of
    the issue's own (spice_engine.strength.shell_neighbours), said as such."""
    a, b = _pairs(fix), _pairs(survivor)
    n = _first_unequal(a, b)
    statement = (a[n] if n < len(a) else b[n] if n < len(b) else ("", ""))[0]
    fixed, mutated = _first_difference(a[n][1] if n < len(a) else "", b[n][1] if n < len(b) else "")
    seen = IssueExample(
        statement=statement[:LINE], fix=fixed, survivor=mutated, near=statement in near
    )
    said = f"the issue's `{seen.statement}`"
    if seen.near:
        said = f"the issue's command with an argument left out, `{seen.statement}`,"
    why = f"{said} prints {seen.survivor!r} where the fix prints {seen.fix!r}"
    update = {
        "verdict": Verdict.SURVIVED,  # one a differential run saw no difference in, too
        "difference": "issue",
        "difference_in": None,
        "reason": why,
        "issue_example": seen,
    }
    return m.model_copy(update=update)


def _pairs(statements: Any) -> list[tuple[str, str]]:
    """The (statement, printed) pairs of a message (what the sandbox sent: checked)."""
    if not isinstance(statements, list):
        return []
    return [(str(p[0]), str(p[1])) for p in statements if isinstance(p, list) and len(p) == 2]


def _first_difference(fix: str, survivor: str) -> tuple[str, str]:
    """The first line of a statement's output that differs, as each printed it."""
    a, b = fix.strip().splitlines(), survivor.strip().splitlines()
    n = _first_unequal(a, b)
    return tuple(  # type: ignore[return-value]
        (lines[n] if n < len(lines) else "(nothing)")[:LINE] for lines in (a, b)
    )


def _first_unequal(a: list[Any], b: list[Any]) -> int:
    """Where two sequences first differ (the shorter one's length when one extends the other)."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )

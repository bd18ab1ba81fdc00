"""The issue's own example as evidence: a survivor that changes what the reporter's example
prints is a wrong fix on the very input the issue is about, whatever the tests check, and
whether or not a judged test executes its line.

The example (spice_engine.langs.python_examples) runs in the sandbox, in the tree with the
mutant schema, under our driver (spice_engine.strength.examples_plugin): twice under the fix
(what it prints must not move between two runs), once under a decoy id no code reads (what it
prints must not move with the switch itself: a hostile example could print it), then under
each survivor, best-ranked first, within a share of the budget left. A survivor whose example
prints otherwise than the fix is marked `difference="issue"` with the first line that differs;
one whose example prints the same is left as it was (the example may not reach its case:
nothing is proven equivalent by it).
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from spice_engine.langs.capabilities import issue_examples
from spice_engine.strength.choose import ID_STRIDE, Choice, schema_sources
from spice_engine.strength.result import IssueExample, MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.verdicts import Verdicts
from spice_engine.validate.plugin_run import messages

EXAMPLES_PLUGIN = "_spice_examples"
EXAMPLES_SOURCE = Path(__file__).with_name("examples_plugin.py")
SHARE = 0.5
"""Of the budget left, what the example's runs may take (the ablation comes after)."""
LINE = 160
"""What of a differing line is kept."""
PER_STATE_S = 60.0
"""A state's first limit; the driver lowers it to a few times the fix's own run."""
MOVES = "the issue's example prints something else on two runs of the fix: it says nothing"
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
    order = sorted(
        (k for k, m in done.items() if k in chosen and m.verdict == Verdict.SURVIVED and m.rank),
        key=lambda k: done[k].rank,
    )
    if not snippets or not order:
        return verdicts, ""
    budget = runner.left() * SHARE
    if budget < 10:
        return verdicts, "the issue's example not run (the time budget)"
    decoy = str(len(choice.originals) * ID_STRIDE + 1 + secrets.randbelow(ID_STRIDE))
    states: list[str | None] = [None, None, decoy, *(str(k) for k in order)]
    settings = {
        "snippets": snippets,
        "states": states,
        "per_state_s": PER_STATE_S,
        "budget_s": budget - 3.0,
    }
    only = Choice([chosen[k] for k in order], 0, [], choice.originals, choice.lines)
    tree = session.tree
    for path, text in schema_sources(only).items():
        tree.put(path, text)
    try:
        plugin = session.plugin(EXAMPLES_SOURCE, EXAMPLES_PLUGIN, settings, alone=True)
        run = runner.alone(plugin, budget)
    finally:
        for path in choice.originals:
            tree.restore(path)
    said: dict[str | None, list[dict[str, Any]]] = {}
    for message in messages(run.channel):
        state = message.get("state")
        if message.get("status") == "ok" and isinstance(message.get("digest"), str):
            said.setdefault(state, []).append(message)
    fixed = said.get(None, [])
    if len(fixed) < 2:
        return verdicts, "the issue's example did not run to its end under the fix"
    if fixed[0]["digest"] != fixed[1]["digest"]:
        return verdicts, MOVES
    if [m["digest"] for m in said.get(decoy, [])] != [fixed[0]["digest"]]:
        return verdicts, READS_SWITCH
    kept = dict(done)
    for key in order:
        got = said.get(str(key))
        if got and got[0]["digest"] != fixed[0]["digest"]:
            kept[key] = _told(done[key], str(fixed[0]["output"]), str(got[0]["output"]))
    return verdicts.model_copy(update={"done": kept}), ""


def _told(m: MutantOutcome, fix: str, survivor: str) -> MutantOutcome:
    """`m` marked as told apart by the issue's example, with the first line that differs."""
    a, b = fix.splitlines(), survivor.splitlines()
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    seen = IssueExample(
        fix=a[n][:LINE] if n < len(a) else "", survivor=b[n][:LINE] if n < len(b) else ""
    )
    why = f"the issue's example prints {seen.survivor!r} where the fix prints {seen.fix!r}"
    update = {"difference": "issue", "difference_in": None, "reason": why, "issue_example": seen}
    return m.model_copy(update=update)

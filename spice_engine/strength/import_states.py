"""What code run at import leaves behind, as evidence: a Python survivor in a module's own
statements (a table of roles, a pattern, a class attribute) runs when the module is
imported, where no differential run watches a call (nor the schema switches it: such a
mutant is run as its own file). Each such survivor's module is imported fresh by our example
driver (spice_engine.strength.examples_plugin, nothing imported before), twice with the fix's
file in the tree and once with the survivor's, and what the module then holds is written out the same way each time
(spice_engine.strength.state_dump_support): a survivor under which the module holds something
else is a difference every importer sees — the tests' own imports included — and is shown as
one (`difference="tests"`, in what was `stored`), naming the name that differs; one under
which the module holds the same is left as it was (what it changes may not be kept).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from spice_engine.langs.capabilities import IssueExamples
from spice_engine.strength.choose import Choice
from spice_engine.strength.issue_examples import (
    FLOOR_S,
    LINE,
    MAX_MUTANTS,
    MOVES,
    SHARE,
    UNFINISHED,
    driver_states,
)
from spice_engine.strength.result import ModuleState, MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.verdicts import Verdicts

DUMPER = Path(__file__).with_name("state_dump_support.py")
ROOTS = {"src", "lib", "python"}
"""Folders a project's packages sit under without being part of their names."""
STOPPED = {
    MOVES: "a module's state at import differs between two imports under the fix: not compared",
    UNFINISHED: "a module's state at import was not read under the fix: not compared",
}
LEFT = "{n} survivor(s) run at import not compared with the fix's module (the time budget)"
KEEP = 200_000
"""What of a module's written-out state comes back (all of it, short of a giant table)."""
BUDGET = "the modules' states at import not compared (the time budget)"


def module_names(path: str) -> list[str]:
    """The names `path`'s module may be imported by: a `src/` layout's package by its own
    name first, then the whole path's."""
    if not path.endswith(".py"):
        return []
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    names = [".".join(parts[i + 1 :]) for i, part in enumerate(parts[:-1]) if part in ROOTS]
    return [n for n in [*names, ".".join(parts)] if n]


def at_import(m: MutantOutcome) -> bool:
    """A survivor no differential run could watch: its line runs at import (no test's call)."""
    return m.verdict == Verdict.SURVIVED and m.reached is None and m.difference is None


def run_import_states(
    runner: Runner, verdicts: Verdicts, choice: Choice, problem: str
) -> tuple[Verdicts, str]:
    """`verdicts` with each survivor run at import whose module then holds something else
    marked so; and what stopped the comparison ("" when it ran, or there was none to make)."""
    if not isinstance(runner.session.language, IssueExamples):  # our Python driver runs it
        return verdicts, ""
    chosen = {c.key: c for c in choice.chosen}
    done = verdicts.done
    imported = verdicts.imported or frozenset()  # a module no test imports: its line is untested
    order = sorted(
        (k for k, m in done.items() if k in chosen and at_import(m) and m.path in imported),
        key=lambda k: (done[k].rank, k),
    )[:MAX_MUTANTS]
    if not order:
        return verdicts, ""
    left = runner.left()
    end = time.monotonic() + min(left, max(left * SHARE, FLOOR_S))
    snippets = {p: _snippets(p) for p in {chosen[k].path for k in order}}
    fixed: dict[str, dict[str, Any]] = {}  # a module's path -> the fix's message
    for path, wanted in sorted(snippets.items()):  # each module twice as the fix has it
        said = _states(runner, wanted, [None, None], end)
        digests = {m["digest"] for m in said}
        if len(said) < 2:
            return verdicts, BUDGET if end <= time.monotonic() else STOPPED[UNFINISHED]
        if len(digests) > 1:
            return verdicts, STOPPED[MOVES]
        fixed[path] = said[0]
    kept = dict(done)
    tree = runner.session.tree
    for n, key in enumerate(order):
        c = chosen[key]
        if end - time.monotonic() < 2:
            return verdicts.model_copy(update={"done": kept}), LEFT.format(n=len(order) - n)
        tree.put(c.path, c.source)  # code run at import is no schema's: the file itself
        try:
            said = _states(runner, snippets[c.path], [None], end)
        finally:
            tree.restore(c.path)
        if said and said[0]["digest"] != fixed[c.path]["digest"]:
            before = fixed[c.path].get("statements")
            kept[key] = _held(done[key], before, said[0].get("statements"))
    return verdicts.model_copy(update={"done": kept}), ""


def _snippets(path: str) -> list[str]:
    return [DUMPER.read_text(), f"_spice_state({module_names(path)!r})"]


def _states(
    runner: Runner, snippets: list[str], states: list[str | None], end: float
) -> list[dict[str, Any]]:
    """The driver's messages for the fix's states (the tree as it is), in order."""
    left = end - time.monotonic()
    if left < 1:
        return []
    said = driver_states(runner, snippets, states, left, preimport=False, keep=KEEP)
    return said.get(None, [])


def _held(m: MutantOutcome, fix: object, survivor: object) -> MutantOutcome:
    """`m` marked as leaving its module otherwise, naming the first line that differs."""
    a, b = _lines(fix), _lines(survivor)
    gone = [line for line in a if line not in set(b)]
    new = [line for line in b if line not in set(a)]
    module = next((line[len("module ") :] for line in a if line.startswith("module ")), "")
    seen = ModuleState(
        module=module,
        fix=(gone[0] if gone else "(nothing)")[:LINE],
        survivor=(new[0] if new else "(nothing)")[:LINE],
    )
    why = (
        f"imported under it, `{module}` holds `{seen.survivor}` where the fix's holds `{seen.fix}`"
    )
    update = {
        "difference": "tests",
        "difference_in": "stored",
        "reason": why,
        "module_state": seen,
    }
    return m.model_copy(update=update)


def _lines(statements: object) -> list[str]:
    """Every line the module states printed, in order (what the sandbox sent: checked)."""
    if not isinstance(statements, list):
        return []
    out: list[str] = []
    for pair in statements:
        if isinstance(pair, list) and len(pair) == 2:
            out += str(pair[1]).splitlines()
    return out

"""The differential run of a language our plugins cannot enter but whose functions can be traced
(`CallTraces`: Go, Rust, Java): the fix's build with each survivor's function (and a private
one's callers in its file) writing down the tests' calls, run twice, then each survivor's the
same way, best-ranked first, within a share of the budget.

A survivor whose function answers a call the fix's two runs agree on otherwise (returns, raises
or leaves in its receiver or arguments something else) is a difference on the tests' own inputs:
shown, as Python's differential run shows one — unless the function is private and its callers
in the file all answer alike (a difference no caller passes on: held), or the test files record
what their calls got back (Java's: spice_engine.strength.traced_runs) and every value they got
was the fix's (a difference no test received: held). One answering every such call alike is held
("not confirmed either way") when its change alters a value whenever it runs
(`changes_whenever_run`), and stays shown, saying so, when it is a bound, a constant or an
assignment the tests' inputs may never have tried. A call left out that goes through a parameter
its function captured (spice_engine.strength.parameter_calls) is not traced: no answer can say. A
function the tests never enter is a line no test executes; what the runs could not say (a run
cut short, the budget) leaves the survivor as the line probe says, with the reason.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from spice_engine.langs.base import Language
from spice_engine.langs.capabilities import call_traces, callers, traced
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.line_probe import mutated_at
from spice_engine.strength.parameter_calls import left_out_through
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.traced_runs import fix_runs, lost, recording, traced_run
from spice_engine.strength.traces import Compared, Recorded, compare, received_alike, recorded
from spice_engine.strength.verdicts import Verdicts

SHARE = 0.6
"""Of the budget left, what the traced runs may take."""
MAX_TRACED = 24
"""Survivors traced at most, best-ranked first (the budget's share bounds them first)."""
NO_ANSWER_DIFFERED = (
    "differential run: `{function}` answered each of the {calls} distinct calls the tests made "
    "as the fix's does (what it returned and left behind): not confirmed either way, other "
    "inputs may differ"
)
CALLERS_ALIKE = (
    "differential run: `{function}` answered otherwise, but the functions of its file calling "
    "it answered each of the {calls} distinct calls the tests made as the fix's do: a "
    "difference no caller passes on, not confirmed either way"
)
CAPTURED = (
    "the call left out goes through `{name}`, which its function takes from the one around it, "
    "not as an argument: no walk of its calls sees what that call does"
)
RECEIVED_ALIKE = (
    "differential run: `{function}` answered otherwise, but every value the pull request's "
    "tests got back from their calls ({calls} call sites) was the fix's: a difference no test "
    "received, not confirmed either way"
)
UNTRIED = "none may give the input where this change shows"
"""What UNEXERCISED says of a traced survivor whose function the tests entered (a reader of
stored rows tells it by this)."""
UNEXERCISED = (
    "differential run: `{function}` answered each of the {calls} distinct calls the tests made "
    f"as the fix's does, but {UNTRIED} (a bound, a constant, a value kept): shown as executed "
    "and unchecked"
)


def traceable(language: Language) -> bool:
    return call_traces(language) is not None


def trace_survivors(runner: Runner, verdicts: Verdicts, choice: Choice) -> tuple[Verdicts, str]:
    """`verdicts` with what the traced runs saw of each survivor some judged test may execute;
    and why none were traced, when none were (the budget, a traced build the tests fail)."""
    language = runner.session.language
    done = verdicts.done
    chosen = {c.key: c for c in choice.chosen}
    order = sorted(
        (k for k, m in done.items() if k in chosen and _open(m)), key=lambda k: done[k].rank
    )[:MAX_TRACED]
    if call_traces(language) is None or not order or runner.test_run_s is None:
        return verdicts, ""
    mark = f"SPICE-TRACE-{secrets.token_hex(6)}"
    fixed, sites = _fix_traced(language, choice, [chosen[k] for k in order], mark)
    order = [k for k in order if k in sites]
    if not order:
        return verdicts, ""
    budget = runner.left() * SHARE
    with runner.holding(runner.left() - budget), recording(runner, mark) as tests:
        runs, why = fix_runs(runner, list(verdicts.judged), fixed, mark, tests)
        if why:
            return verdicts, f"differential run: {why}"
        fix, again = (recorded(r.log, mark) for r in runs)
        seen: dict[int, Compared] = {}
        for k in order:
            if runner.left() <= 0:
                break
            if name := _captured(language, choice, chosen[k], done[k]):
                seen[k] = Compared(None, why=CAPTURED.format(name=name))
                continue  # its run could not say: none is spent on it
            got = _survivor_traced(
                runner, verdicts, choice, (chosen[k], sites[k]), mark, (fix, again)
            )
            if got is not None:
                seen[k] = got
    new = dict(done)
    for k in order:
        new[k] = _kept(done[k], seen.get(k), sites[k].ids[0] in fix.entered | again.entered)
    return verdicts.model_copy(update={"done": new}), ""


def _survivor_traced(
    runner: Runner,
    verdicts: Verdicts,
    choice: Choice,
    survivor: tuple[Chosen, Site],
    mark: str,
    fixes: tuple[Recorded, Recorded],
) -> Compared | None:
    """What one traced run of the survivor `c` shows of its function (`site.ids[0]`), judged at
    its callers' level (the rest: a private function's callers in its file) where it has them,
    and at the tests' own (what their calls got back, where the test files record it) where it
    differs."""
    c, site = survivor
    at, ids = site.places[0], site.ids
    moved = len(c.source.encode()) - len(choice.originals[c.path].encode())
    places = [at] + [b + moved if b > at else b for b in site.places[1:]]
    own = traced(runner.session.language, c.path, c.source, places, mark)
    if own is None or own[1] != ids:
        return None
    run = traced_run(runner, {c.path: own[0]}, mark)
    fix, again = fixes
    if run.killed or lost(runner, list(verdicts.judged), run):
        return Compared(None, why="its traced run was cut short or failed a judged test")
    under = recorded(run.log, mark)
    got = under.calls
    if not got.get(ids[0]) and fix.calls.get(ids[0]):
        return Compared(None, why="its function's calls were not seen under it")
    seen = [compare(fix.calls.get(i, []), again.calls.get(i, []), got.get(i, [])) for i in ids]
    if any(s.differs for s in seen) and (sites := received_alike(fix, again, under)):
        return Compared(False, calls=sites, why=RECEIVED_ALIKE, unpassed=True)
    if not seen[0].differs or len(seen) == 1 or any(s.differs for s in seen[1:]):
        return next((s for s in seen[1:] if s.differs), seen[0])
    if all(s.differs is False for s in seen[1:]):
        calls = sum(s.calls for s in seen[1:])
        return Compared(False, calls=calls, why=CALLERS_ALIKE, unpassed=True)
    return seen[0]  # its callers could not say: what its own answers show


def _captured(language: Language, choice: Choice, c: Chosen, m: MutantOutcome) -> str | None:
    """The name a left-out call goes through that its function captured from one around it."""
    if m.operator != "statement removed":
        return None
    called = left_out_through(language, choice, c)
    return called.name if called is not None and called.captured else None


def _open(m: MutantOutcome) -> bool:
    """A survivor some judged test may execute, with nothing yet showing it."""
    return (
        m.verdict == Verdict.SURVIVED
        and m.reached != "not_executed"
        and m.difference is None
        and m.catching_test is None
    )


@dataclass(frozen=True)
class Site:
    """What is traced for one survivor: bytes of the fixed file in its function, then in each
    of that function's callers in the file (a private one's), and those functions' ids."""

    places: list[int]
    ids: list[str]


def _fix_traced(
    language: Language, choice: Choice, survivors: list[Chosen], mark: str
) -> tuple[dict[str, str], dict[int, Site]]:
    """Each survivor's file with every survivor's function and its callers in the file traced;
    survivor -> what is traced for it (none: no traceable function)."""
    by_path: dict[str, list[Chosen]] = {}
    for c in survivors:
        by_path.setdefault(c.path, []).append(c)
    texts: dict[str, str] = {}
    sites: dict[int, Site] = {}
    for path, cs in by_path.items():
        fixed = choice.originals[path]
        places: dict[int, list[int]] = {}
        for c in cs:
            at = mutated_at(fixed, c)
            here = [at, *callers(language, fixed, at)]
            if traced(language, path, fixed, here, mark) is not None:
                places[c.key] = here
        every = [b for here in places.values() for b in here]
        got = traced(language, path, fixed, every, mark)
        if got is None:
            continue
        texts[path] = got[0]
        start = 0
        for key, here in places.items():
            sites[key] = Site(here, got[1][start : start + len(here)])
            start += len(here)
    return texts, sites


def _kept(m: MutantOutcome, seen: Compared | None, called: bool) -> MutantOutcome:
    if seen is None:
        return m  # not traced (the budget): as the line probe says
    if seen.differs:  # its function answered otherwise: the tests execute what it changed
        return m.model_copy(
            update={
                "reached": m.reached or "executed_unchecked",
                "difference": "tests",
                "difference_in": seen.where,
                "reason": "differential run: its function returns or leaves behind other "
                "values on the tests' own inputs",
            }
        )
    if not called and m.reached is None:  # no judged test calls its function
        return m.model_copy(update={"reached": "not_executed", "reason": seen.why})
    if seen.differs is None:
        return m.model_copy(update={"reason": f"differential run: could not say ({seen.why})"})
    function = m.function or "its function"
    if seen.unpassed:
        why = seen.why.format(function=function, calls=seen.calls)
        return m.model_copy(update={"reason": why, "unconfirmed": why})
    if changes_whenever_run(m):
        why = NO_ANSWER_DIFFERED.format(function=function, calls=seen.calls)
        return m.model_copy(update={"reason": why, "unconfirmed": why})
    # Its function was entered by the tests (its calls answered): executed, unless its line's
    # probe says no test runs it.
    said = UNEXERCISED.format(function=function, calls=seen.calls)
    return m.model_copy(update={"reason": said, "reached": m.reached or "executed_unchecked"})


_FLIPS = {frozenset(p) for p in (("==", "!="), ("<", ">="), (">", "<="), ("<", ">"), ("<=", ">="))}
_ASSIGNED = re.compile(r"^`[^`(]*?[^=!<>:]=[^=]")


def changes_whenever_run(m: MutantOutcome) -> bool:
    """Whether the survivor's change makes a value other than the fix's each time its code
    runs: a truth value flipped or negated, a literal `true`/`false` flipped, an arithmetic
    operator swapped, a call left out. Then a function answering every call alike though its
    line ran says the change reached no caller. Not so for a bound moved by one (`<` → `<=`:
    only at the bound), a constant, `&&` ↔ `||`, a removed assignment (its value may be the
    one held already: `dir = ReadLink(dir)` on a path with no link): those the tests' inputs
    may never have tried."""
    if m.operator in ("negated condition", "negation", "boolean", "arithmetic"):
        return True
    if m.operator == "statement removed":
        return not _ASSIGNED.match(m.change)
    if m.operator in ("relational", "comparison"):
        ops = re.findall(r"(==|!=|<=|>=|<|>)", m.change)
        return len(ops) >= 2 and frozenset(ops[:1] + ops[-1:]) in _FLIPS
    return False

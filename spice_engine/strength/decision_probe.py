"""Whether the tests ever give the input where a survivor decides otherwise, where no plugin of
ours watches them: each survivor a judged test executes, with no difference seen, probed by the
fixed file comparing its decision with the mutant's there (spice_engine.langs.decision_probes),
its tests run whole as a mutant's are.

Until a mutant's expression first differs its run is the fix's; so a survivor no judged test
makes differ passes because no test gives the input where it shows: shown, saying so (go-zero's
uint field never given 0, jq's lowercase `f` never decoded). One a judged test makes differ and
which still passes every test was tried and masked, or tried and not checked: nothing a caller
could see is known, so it is held as not confirmed either way, as Python's differential run
holds one answering alike (jq's first octet set to 1 and shifted out; fmt's native and generic
path, the same string on POSIX). An assignment left out is probed for whether it changed what its
target holds (spice_engine.langs.kept_probes: go-zero-990's `dir = filepath.Dir(dir)`); a
statement left out that assigns nothing is tried wherever its line runs: held without a probe
(go-zero-2463's wrappers of logx left empty), unless it calls what the caller gave
(spice_engine.strength.parameter_calls: go-zero-2363's `next.ServeHTTP(w, r)`): shown. Where a
probe could be placed but did not answer (the budget spent, a run cut or hung, a probe that did
not build) the survivor is held as well: its line's run alone is the evidence the probe was
there to weigh, and shown on it alone survivors were genuine about half the time (C 4 of 9, C++
1 of 2, Go 8 of 14 before the probes); fmt-3750's dead `0` → `1` was shown so when a 3× budget
cut its probe.

An assignment left out that never changed its target is held too, unlike a decision no test
makes differ: what it writes was already there each time the tests ran it, which is what an
assignment made on purpose to change nothing does (gson-1391's `toResolve = original;` after
`original = (WildcardType) toResolve`, jackson-core-1053's `else { diff = 0; }` under
`if (diff == 0)`: both shown so, both irrelevant, and no genuine one was seen).
"""

from __future__ import annotations

from dataclasses import dataclass

from spice_engine.langs.base import Language
from spice_engine.langs.decision_probes import DecisionProbe, probe
from spice_engine.langs.kept_probes import probe as kept
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.line_probe import failing, probed_run
from spice_engine.strength.parameter_calls import left_out_through
from spice_engine.strength.result import MutantOutcome, TestStrength, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.strength.traced import changes_whenever_run
from spice_engine.strength.verdicts import Verdicts

MAX_DECISIONS = 8
"""Survivors probed at most in one measurement (each one whole run), best-ranked first."""
TRIED = (
    "decision probe: {tests} made `{expression}` {differ} and still passed, and nothing showed "
    "a caller the difference: not confirmed either way"
)
UNTRIED = (
    "decision probe: no judged test makes `{expression}` {differ} (its line runs): the tests "
    "never give the input where this change shows"
)
NEVER_CHANGED = (
    "kept-assignment probe: no judged test makes `{expression}` {differ}: it wrote what was "
    "already there each time it ran, as an assignment made to change nothing does: not "
    "confirmed either way"
)
LEFT_OUT = (
    "a statement left out whose line a judged test runs: what it does is undone each time it "
    "runs, the tests still pass, and nothing showed a caller the difference: not confirmed "
    "either way"
)
CALLER_CODE = (
    "a call left out through `{name}`, which its caller gave it: that code is never run, which a "
    "caller sees in its own code, and the tests still pass"
)
HELD = (
    "{n} survivor(s) the tests tried (a decision, a value or a statement that differed) and still "
    "passed: not confirmed either way"
)
UNDECIDED = (
    "{n} survivor(s) not decision-probed (the time budget, a cut run, a probe that did not build): "
    "not confirmed either way"
)
UNANSWERED = (
    "no decision probe answered (the time budget, a cut run, or a probe that did not build): "
    "its line runs and nothing showed a caller a difference: not confirmed either way"
)


@dataclass
class Decided:
    held: int = 0
    unprobed: int = 0


def probe_decisions(runner: Runner, verdicts: Verdicts, choice: Choice) -> Decided:
    """Each survivor a judged test executes with nothing yet showing a difference, best-ranked
    first: held (`unconfirmed`) when a judged test makes its expression differ or no probe
    answered, said so (`reason`) when none does."""
    found = Decided()
    done, judged = verdicts.done, list(verdicts.judged)
    language = runner.session.language
    open_ = sorted(
        (c for c in choice.chosen if c.key in done and _open(done[c.key])),
        key=lambda c: done[c.key].rank or 10**6,
    )
    start = runner.runs
    for c in open_:
        decision, assignment = _probed(language, choice, c)
        if decision is None:
            if not _left_out(done[c.key]):
                continue
            if called := left_out_through(language, choice, c):
                done[c.key].reason = CALLER_CODE.format(name=called.name)
                done[c.key].through = called.name
            else:
                done[c.key].unconfirmed = LEFT_OUT
                found.held += 1
            continue
        m = done[c.key]
        if runner.left() <= 0 or runner.runs - start >= MAX_DECISIONS:
            m.unconfirmed = UNANSWERED
            found.unprobed += 1
            continue
        differing = failing(runner, probed_run(runner, c.path, decision.source, judged), judged)
        if differing is None:
            m.unconfirmed = UNANSWERED
            found.unprobed += 1
            continue
        said = {"expression": _cut(decision.expression), "differ": decision.differ}
        if differing:
            m.unconfirmed = TRIED.format(tests=_named(differing), **said)
            found.held += 1
        elif assignment:
            m.unconfirmed = NEVER_CHANGED.format(**said)
            found.held += 1
        else:
            m.reason = UNTRIED.format(**said)
    return found


def say(found: Decided, record: TestStrength) -> None:
    if found.held:
        record.skipped.append(HELD.format(n=found.held))
    if found.unprobed:
        record.skipped.append(UNDECIDED.format(n=found.unprobed))


def _open(m: MutantOutcome) -> bool:
    """A survivor shown on its line's run alone: nothing seen to differ, none catching it."""
    return (
        m.verdict == Verdict.SURVIVED
        and m.reached == "executed_unchecked"
        and m.difference is None
        and m.catching_test is None
        and not m.unconfirmed
    )


def _left_out(m: MutantOutcome) -> bool:
    """A call or another statement left out that is no assignment: its line's run is its
    change's (as a traced function answering alike holds it, `changes_whenever_run`)."""
    return m.operator == "statement removed" and changes_whenever_run(m)


def _probed(language: Language, choice: Choice, c: Chosen) -> tuple[DecisionProbe | None, bool]:
    """The survivor's decision probe, else its kept-assignment probe (True: this one)."""
    grammar, fixed = language.grammar(c.path), choice.originals[c.path]
    if (decision := probe(grammar, fixed, c.source)) is not None:
        return decision, False
    return kept(grammar, fixed, c.source), True


def _named(tests: list[str]) -> str:
    more = f" and {len(tests) - 1} more" if len(tests) > 1 else ""
    return f"`{tests[0]}`{more}"


def _cut(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"

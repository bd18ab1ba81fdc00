"""Verdicts of chosen mutants: in the shared mutant session, or each in a process of its own.

A verdict is a `Verdict`, never prose: `killed_by` holds the judged test that failed; a run the
budget or a timeout cut off, or a session that crashed under a mutant and whose mutant could
not be run again alone, leaves the mutant `not_run` with its reason.
"""

from __future__ import annotations

from typing import Literal

from spice_engine.redaction import redacted_excerpt
from spice_engine.strength import sources
from spice_engine.strength.choose import Choice, Chosen, schema_sources
from spice_engine.strength.result import MutantOutcome, StrengthConfig, Verdict, evidence
from spice_engine.strength.runs import Observed, Runner
from spice_engine.validate.outcomes import passed

Ran = Literal["session", "process", "none"]
NO_DIFFERENCE = (
    "no difference observed: on its {calls} calls by the tests that run it and on inputs next "
    "to theirs, `{function}` returned or raised what the fix's did and left its arguments as "
    "the fix's did (not a proof: other inputs may differ)"
)
"""A survivor's differential run found nothing a test could check (on the tests' inputs)."""
SESSION_ROUNDS = 4
"""Sessions at most for the switchable mutants (a crash ends one; the next goes on)."""


class Outcomes:
    """The verdicts so far, and what the session says about which tests reach which mutant."""

    def __init__(self, judged: list[str], chosen: list[Chosen], originals: dict[str, str]) -> None:
        self.judged, self.originals = judged, originals
        self.log = ""
        """The first session's log."""
        self.by_key = {c.key: c for c in chosen}
        self.done: dict[int, MutantOutcome] = {}
        self.unstable: list[str] = []
        """Judged tests that failed their control rerun in the session: they judge the
        session's survivors again in processes of their own."""
        self.differential_s = 0.0
        """Seconds the sessions spent on differential runs."""
        self.reached: dict[str, set[int]] = {}
        """Judged test -> the switchable mutants its ordinary run executed (their guards)."""

    def add(
        self, c: Chosen, verdict: Verdict, killed_by: str | None, reason: str, run: str
    ) -> None:
        ran: Ran = "session" if run == "session" else "process" if run == "process" else "none"
        killer = killed_by if verdict == Verdict.KILLED else None
        before = self.done.get(c.key)
        self.done[c.key] = _outcome(c, self.originals[c.path], verdict, reason, ran, killer)
        if before is not None and verdict == Verdict.SURVIVED:  # confirmed alone: still seen
            self.done[c.key].difference = before.difference
            self.done[c.key].difference_in = before.difference_in
            self.done[c.key].reason = reason or before.reason


def _differential_reason(seen: Observed | None) -> str:
    """A survivor's `reason`: what its differential run saw, or why it could not say."""
    if seen is None or seen.differs is None:
        return f"differential run: could not say ({seen.why})" if seen and seen.why else ""
    place = "the tests' own inputs" if seen.seen == "tests" else "inputs next to the tests'"
    return f"differential run: its function returns or leaves behind other values on {place}"


def proven(c: Chosen, proof: str, fixed: str) -> MutantOutcome:
    """A mutant proven equivalent before any run."""
    return _outcome(c, fixed, Verdict.EQUIVALENT, proof, "none")


def _outcome(
    c: Chosen, fixed: str, verdict: Verdict, reason: str, run: Ran, killed_by: str | None = None
) -> MutantOutcome:
    return MutantOutcome(
        path=c.path,
        line=c.site.line,
        function=c.site.function,
        operator=c.site.operator,
        change=c.site.change,
        diff=sources.diff(c.path, fixed, c.source),
        verdict=verdict,
        killed_by=killed_by,
        reason=reason,
        run=run,
    )


def mutate(runner: Runner, files: list[str], tests: list[str], choice: Choice,
           config: StrengthConfig) -> Outcomes | str:  # fmt: skip
    """Each chosen mutant's verdict; a string says why none could be judged."""
    tree, chosen, fixed = runner.session.tree, choice.chosen, choice.originals
    # The schema of the switchable ones; the rest (code run at import) one process each.
    switchable = [c for c in chosen if c.site.switchable]
    only = Choice(switchable, 0, [], fixed, choice.lines)
    for path, text in schema_sources(only).items():
        tree.put(path, text)
    todo = [c.key for c in switchable]
    out: Outcomes | None = None
    alone: list[Chosen] = []
    log = ""
    try:
        for n in range(SESSION_ROUNDS):
            if n and (not todo or runner.left() <= 0):
                break
            watch = {
                c.key: (c.path, c.site.function, evidence(c.site.operator) > 1)
                for c in switchable
                if c.site.function
            }
            got = runner.mutant_session(files, tests, todo, config.per_test_s, watch)
            log = got.log
            if got.baseline is None:
                break
            if out is None:
                out = Outcomes(got.baseline, chosen, fixed)
                out.log = got.log
            out.unstable += [t for t in got.unstable if t not in out.unstable]
            out.differential_s += sum(o.seconds for o in got.observed.values())
            for test, ids in got.reached.items():
                out.reached.setdefault(test, set()).update(ids)
            for key, killer in got.killed_by.items():
                if key not in out.by_key:
                    continue  # no mutant of ours: nothing to record
                if killer is not None and killer not in out.judged:
                    alone.append(out.by_key[key])  # not a judged test's id: judged alone
                    continue
                verdict = Verdict.SURVIVED if killer is None else Verdict.KILLED
                seen = got.observed.get(key)
                if verdict == Verdict.SURVIVED and seen is not None and seen.differs is False:
                    c = out.by_key[key]
                    why = NO_DIFFERENCE.format(function=c.site.function, calls=seen.calls)
                    out.add(c, Verdict.EQUIVALENT, None, why, "session")
                    continue
                out.add(out.by_key[key], verdict, killer, _differential_reason(seen), "session")
                if seen is not None:
                    out.done[key].difference = seen.seen
                    out.done[key].difference_in = seen.where
            if got.crashed is not None and got.crashed in out.by_key:
                # No test id to name: judged again alone (a real failure names its test).
                alone.append(out.by_key[got.crashed])
            finished = set(got.killed_by) | ({got.crashed} if got.crashed is not None else set())
            todo = [k for k in todo if k not in finished]
            if got.timed_out or not finished:
                break  # cut, or no budget left for the plugin: another session would repeat it
    finally:
        for path in fixed:
            tree.restore(path)
    if out is None:
        if switchable:
            excerpt = redacted_excerpt(log, tail=3000)
            late = " (the time budget ran out)" if runner.left() <= 0 else ""
            return f"the test session did not get to the mutants{late}: {excerpt}"
        out = Outcomes(tests, chosen, fixed)
    if not out.judged:
        return "no judged test passes with the fix (in the mutant session)"
    for c in dict.fromkeys(alone + [c for c in chosen if not c.site.switchable]):
        judge_alone(runner, out, c)
    for c in chosen:
        if c.key not in out.done:
            out.add(c, Verdict.NOT_RUN, None, "time budget: not reached", "none")
    return out


def judge_alone(runner: Runner, out: Outcomes, c: Chosen) -> None:
    """The mutant's verdict from its plain source run in a process of its own (the test files
    run whole, as SWE-bench's harness would grade this wrong fix)."""
    if runner.left() <= 0:
        if c.key not in out.done or out.done[c.key].verdict != Verdict.SURVIVED:
            out.add(c, Verdict.NOT_RUN, None, "time budget: not run alone", "none")
        return
    tree = runner.session.tree
    tree.put(c.path, c.source)
    try:
        done = runner.outcomes(out.judged, whole_files=True)
    finally:
        tree.restore(c.path)
    if done.killed:
        cut = "the time budget" if runner.left() <= 1 else f"its run was stopped ({done.killed})"
        out.add(c, Verdict.NOT_RUN, None, f"cut off: {cut}", "process")
        return
    killer = next((t for t in out.judged if not passed(done.outcomes, t)), None)
    out.add(c, Verdict.SURVIVED if killer is None else Verdict.KILLED, killer, "", "process")


def confirm(runner: Runner, out: Outcomes, ranked: list[int], limit: int) -> None:
    """Session survivors re-run alone, in `ranked` order: up to `limit`, or every one when some
    judged test could not judge in the session (then those the budget leaves are not run)."""
    survivors = [
        k
        for k in ranked
        if out.done[k].verdict == Verdict.SURVIVED and out.done[k].run == "session"
    ]
    must = bool(out.unstable)
    todo = survivors if must else survivors[:limit]
    for k in todo:
        judge_alone(runner, out, out.by_key[k])
    if must:  # a test that could not judge in the session: its survivors there are not verdicts
        for k in survivors:
            if out.done[k].run == "session":
                out.add(out.by_key[k], Verdict.NOT_RUN, None, "time budget: not confirmed alone "
                        "(a judged test could not judge in the session)", "none")  # fmt: skip

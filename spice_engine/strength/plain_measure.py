"""Test strength in the languages without a mutant schema: each mutant its own run of the
fix's tests, in the session's tree (spice_engine.strength.syntax_mutants makes them).

Verdicts are judged as validation ran them: the test command over the test patch's and the
fix's files, the judged tests those of FAIL_TO_PASS and PASS_TO_PASS that pass with the fix.
"""

from __future__ import annotations

import time

from spice_engine.runs.session import Run, Session, Status
from spice_engine.runs.validator import run_targets
from spice_engine.strength import sources
from spice_engine.strength.ablation import ablate
from spice_engine.strength.choose import spread
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.rank import rank
from spice_engine.strength.result import MutantOutcome, StrengthConfig, TestStrength, Verdict
from spice_engine.strength.syntax_mutants import SyntaxSite, find_sites, grammar_for, mutant_source
from spice_engine.validate.outcomes import passed


class PlainRunner:
    """Whole runs of the session's tree within what is left of a deadline (the shape
    spice_engine.strength.measure's ablation asks of a runner)."""

    def __init__(self, session: Session, deadline: float, files: list[str], kind: str) -> None:
        self.session, self.deadline, self.files, self.kind = session, deadline, files, kind
        self.runs = 0

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def outcomes(self, tests: list[str], whole_files: bool = False) -> Run:
        self.runs += 1
        timeout = max(1.0, min(self.session.job.timeout_s, self.left()))
        return self.session.run(f"{self.kind}-{self.runs}", self.files, timeout)


def choose_sites(
    session: Session, limit: int
) -> tuple[list[tuple[str, SyntaxSite, str]], dict[str, str], list[str]]:
    """Up to `limit` mutants (path, site, mutated source) spread over the fix's changed lines,
    the fixed sources, and the files no grammar could read."""
    job, tree = session.job, session.tree
    lines = changed_lines(job.patch, session.language.mutable)  # none that cannot matter
    fixed = {p: tree.source(p) for p in lines}
    sites: list[tuple[str, SyntaxSite, str]] = []
    unreadable: list[str] = []
    for path in sorted(lines):
        grammar = grammar_for(job.language, path)
        if grammar is None:
            unreadable.append(path)
            continue
        sites += [(path, s, grammar) for s in find_sites(fixed[path], lines[path], grammar)]
    chosen: list[tuple[str, SyntaxSite, str]] = []
    seen: set[str] = set()
    for i in spread(len(sites)):
        if len(chosen) >= limit:
            break
        path, site, grammar = sites[i]
        source = mutant_source(fixed[path], site, grammar)
        if source is None or source in seen or source == fixed[path]:
            continue
        seen.add(source)
        chosen.append((path, site, source))
    return chosen, fixed, unreadable


def measure_plain(
    session: Session,
    config: StrengthConfig,
    record: TestStrength,
    lists: tuple[list[str], list[str]],
) -> None:
    job, tree = session.job, session.tree
    f2p, p2p = lists
    tree.apply(job.test_patch)
    tree.apply(job.patch)
    runner = PlainRunner(session, time.monotonic() + config.budget(), run_targets(job), "mutant")
    t0 = time.monotonic()
    chosen, fixed, unreadable = choose_sites(session, config.max_mutants)
    record.durations["choose"] = round(time.monotonic() - t0, 3)
    if not chosen:
        record.status = Status.NO_MUTANTS
        record.detail = (
            f"no mutant: no grammar reads {', '.join(unreadable)}"
            if unreadable
            else "no mutant: the fix's changed code lines hold no mutable operator"
        )
        return
    baseline = runner.outcomes([])
    judged = [t for t in [*f2p, *p2p] if passed(baseline.outcomes, t)]
    if f2p and not set(f2p) & set(judged):
        record.status = Status.BASELINE_FAILED
        record.detail = "no FAIL_TO_PASS test passes with the fix in this run"
        return
    record.tests = len(judged)
    t0 = time.monotonic()
    for path, site, source in chosen:
        verdict, killer, reason = Verdict.NOT_RUN, None, "time budget: not reached"
        ran = runner.left() > 0
        if ran:
            tree.put(path, source)
            try:
                done = runner.outcomes(judged)
            finally:
                tree.restore(path)
            if done.killed:  # cut short: no verdict
                reason = "cut off: the time budget" if runner.left() <= 1 else "its run was stopped"
            else:
                killer = next((t for t in judged if not passed(done.outcomes, t)), None)
                verdict = Verdict.SURVIVED if killer is None else Verdict.KILLED
                reason = ""
        record.mutants.append(
            MutantOutcome(
                path=path,
                line=site.line,
                function=site.function,
                operator=site.operator,
                change=site.change,
                diff=sources.diff(path, fixed[path], source),
                verdict=verdict,
                killed_by=killer,
                reason=reason,
                run="process" if ran else "none",
            )
        )
    record.durations["mutants"] = round(time.monotonic() - t0, 3)
    record.tally()
    rank(record.mutants, str(job.instance.get("problem_statement") or ""))
    if record.not_run:
        record.skipped.append(f"{record.not_run} mutant(s) not run: see each one's reason")
    record.say_budget(config)
    record.status = Status.MEASURED if record.mutants_tried else Status.NO_MUTANTS
    if not record.mutants_tried:
        record.detail = (
            "no mutant was judged: each one's reason says why (the time budget, a cut run)"
        )
    elif config.ablation and f2p:
        t0 = time.monotonic()
        runner.kind = "ablation"
        ablate(runner, job.patch, f2p, record)
        record.durations["ablation"] = round(time.monotonic() - t0, 3)

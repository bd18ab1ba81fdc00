"""The one test-strength driver over an open session, for every language: mutants of the fix's
changed lines judged by its tests, survivors ranked and the top ones confirmed alone, then the
ablation of its parts and, where a model is given, tests written to catch the top survivors.

What only a runner loading our pytest plugins can do (the shared mutant session, its probe of
which tests reach which mutant, the differential run, tests chosen by id) is a capability
checked once (`Session.takes_plugins`, as `Runner.plugins`); without it, every mutant is one
whole run of what validation ran.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from spice_engine.langs.capabilities import written_place
from spice_engine.runs.session import Session, Status
from spice_engine.runs.validator_support import test_files
from spice_engine.strength import decision_probe as decisions
from spice_engine.strength import sources
from spice_engine.strength.ablation import ablate
from spice_engine.strength.candidates import candidates
from spice_engine.strength.catching import TestWriter, catch
from spice_engine.strength.choose import Choice
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.import_states import run_import_states
from spice_engine.strength.issue_examples import run_examples
from spice_engine.strength.line_probe import Probed, hold_unknown, probe_lines
from spice_engine.strength.mutant_runs import confirm, mutate
from spice_engine.strength.rank import classify, rank, unconfirmed
from spice_engine.strength.result import TestStrength, Verdict
from spice_engine.strength.run_verdict import UNBUILT
from spice_engine.strength.runs import Runner
from spice_engine.strength.same_code import NOT_CHECKED, same_code
from spice_engine.strength.shell_examples import run_shell_examples
from spice_engine.strength.traced import trace_survivors, traceable
from spice_engine.strength.verdicts import NoVerdicts, Verdicts, proven
from spice_engine.strength.watched import watch_survivors

UNPROBED = "{n} survivor line(s) not probed for the tests executing them (the time budget)"
UNKNOWN = "{n} survivor(s) with nothing classing their line: not confirmed either way"
UNWATCHED = (
    "{n} survivor(s) a judged test runs got no differential run (the time budget): "
    "not confirmed either way"
)
Progress = Callable[[str], None]
"""Told each phase as it starts (`environment`, `12 mutants`, ...): minutes pass in each."""


def _since(t0: float) -> float:
    return round(time.monotonic() - t0, 3)


def measure_fix(
    session: Session,
    config: StrengthConfig,
    record: TestStrength,
    lists: tuple[list[str], list[str]],
    said: Progress,
    deadline: float,
    writer: TestWriter | None = None,
) -> None:
    """`record` filled from the session's fix (`lists`: the judged fail- and pass-to-pass;
    `deadline`: when the budget ends, by `time.monotonic()`)."""
    job, tree = session.job, session.tree
    f2p = lists[0]
    tree.apply(job.test_patch)
    tree.apply(job.patch)
    runner = Runner(session, deadline, job.timeout_s)
    t0 = time.monotonic()
    choice = candidates(session, config.max_mutants)
    record.durations["choose"] = _since(t0)
    record.equivalent_skipped = choice.equivalent
    if choice.chosen and not _judge_mutants(runner, choice, config, lists, said, record):
        return
    record.mutants += [proven(c, why, choice.originals[c.path]) for c, why in choice.proven]
    record.tally()
    if config.ablation and f2p:
        said("ablation")
        t0 = time.monotonic()
        ablate(runner, job.patch, f2p, record)
        record.durations["ablation"] = _since(t0)
    if writer is not None and config.catching_tests and record.survivors:
        t0 = time.monotonic()
        judged = lists[0] + lists[1]
        _write_tests(runner, writer, record, choice, (config.catching_tests, judged))
        record.durations["catching"] = _since(t0)
    record.say_budget(config)
    record.status = Status.MEASURED if record.mutants_tried else Status.NO_MUTANTS
    if not record.mutants_tried:
        record.detail = _why_none(choice)


def _judge_mutants(
    runner: Runner,
    choice: Choice,
    config: StrengthConfig,
    lists: tuple[list[str], list[str]],
    said: Progress,
    record: TestStrength,
) -> bool:
    """The chosen mutants' verdicts into `record` (False: the fix's own tests did not pass,
    said in `record`)."""
    job = runner.session.job
    f2p, p2p = lists
    said(f"{len(choice.chosen)} mutants")
    t0 = time.monotonic()
    try:
        verdicts = mutate(runner, runner.targets, f2p + p2p, choice, config, f2p)
    except NoVerdicts as stop:
        ended = Status.TIMEOUT if stop.cut else Status.BASELINE_FAILED
        record.status, record.detail = ended, stop.detail
        return False
    record.durations["mutants"] = _since(t0)
    if runner.plugins:  # a part of the above
        record.durations["differential"] = round(verdicts.differential_s, 3)
    said("survivors confirmed alone")
    t0 = time.monotonic()
    problem = str(job.instance.get("problem_statement") or "")
    _judge(runner, verdicts, choice, config, (f2p, problem), record)
    record.durations["confirm"] = _since(t0)
    record.tests = len(verdicts.judged)
    return True


def _judge(
    runner: Runner,
    verdicts: Verdicts,
    choice: Choice,
    config: StrengthConfig,
    issue: tuple[list[str], str],
    record: TestStrength,
) -> None:
    """The survivors classed and ranked, the top ones confirmed alone, ranked again."""
    f2p, problem = issue
    switchable = {c.key for c in choice.chosen if c.site.switchable}
    reached = {t: set(ids) for t, ids in verdicts.reached.items()}
    together: dict[int, set[int]] | None = None
    classify(verdicts.done, reached, f2p, switchable)
    rank(list(verdicts.done.values()), problem)
    done_before = verdicts.done
    # The issue's own example first (its code, or the commands it runs the tree's programs
    # with): seconds to a few rebuilds, and the strongest evidence there is.
    t0 = time.monotonic()
    stopped = ""
    for example in (run_examples, run_shell_examples, run_import_states):
        verdicts, why = example(runner, verdicts, choice, problem)
        if why:
            record.skipped.append(why)
        stopped = stopped or why
    if stopped or verdicts.done is not done_before:
        record.durations["examples"] = _since(t0)
        rank(list(verdicts.done.values()), problem)
    done = verdicts.done
    ranked = sorted((k for k, m in done.items() if m.rank), key=lambda k: done[k].rank)
    verdicts = confirm(runner, verdicts, choice, ranked, config.confirm_survivors)
    t0 = time.monotonic()
    verdicts, check, unchecked = same_code(runner, verdicts, choice)
    if check is not None:
        record.durations["same_code"] = _since(t0)
    if unchecked:
        record.skipped.append(NOT_CHECKED.format(n=unchecked))
    if not runner.plugins:  # no plugin saw which tests reach which mutant: probe the lines
        verdicts, probed = _trace_and_probe(runner, verdicts, choice, f2p, record)
        reached, switchable, together = probed.reached, probed.known, probed.together
    done = verdicts.done
    classify(done, reached, f2p, switchable, together)  # with the confirmations' verdicts
    if not runner.plugins and not runner.session.driven_runs:
        if held := hold_unknown(done):
            record.skipped.append(UNKNOWN.format(n=held))
        t0 = time.monotonic()
        decisions.say(decisions.probe_decisions(runner, verdicts, choice), record)
        record.durations["decision_probes"] = _since(t0)
    rank(list(done.values()), problem)
    driven = not runner.plugins and runner.session.driven_runs
    if driven:  # our driver watches the runner's own command: the differential run there
        t0 = time.monotonic()
        verdicts, unwatched = watch_survivors(runner, verdicts, choice, reached)
        record.durations["differential"] = _since(t0)
        if unwatched:
            record.skipped.append(UNWATCHED.format(n=unwatched))
        done = verdicts.done
        rank(list(done.values()), problem)  # with what the differential run saw
    if runner.plugins or driven:  # only a differential run can confirm a difference
        for m in done.values():
            m.unconfirmed = unconfirmed(m) if m.verdict == Verdict.SURVIVED else ""
    alone = sum(m.verdict == Verdict.SURVIVED and m.run == "session" for m in done.values())
    if alone:
        why = "budget" if runner.left() <= 0 else f"only the top {config.confirm_survivors} are"
        record.skipped.append(
            f"{alone} survivor(s) judged in the shared session only, not re-run alone ({why})"
        )
    unrun = [m for m in done.values() if m.verdict == Verdict.NOT_RUN]
    unbuilt = sum(m.reason == UNBUILT for m in unrun)
    if len(unrun) > unbuilt:
        record.skipped.append(f"{len(unrun) - unbuilt} mutant(s) not run: see each one's reason")
    if unbuilt:  # a typed language's removed call, mostly: no wrong fix anyone could merge
        record.skipped.append(f"{unbuilt} mutant(s) do not build: not wrong fixes, not judged")
    record.mutants = [done[k] for k in sorted(done)]


def _trace_and_probe(
    runner: Runner, verdicts: Verdicts, choice: Choice, f2p: list[str], record: TestStrength
) -> tuple[Verdicts, Probed]:
    """Without our plugins: where the language's functions can be traced, the tests' calls of
    each survivor's function first (what shows or holds it), then the line probes, for what the
    traces left unsettled (which tests execute a line the function's calls answered alike)."""
    settled: set[int] = set()
    traced = traceable(runner.session.language)
    if traced:
        t0 = time.monotonic()
        verdicts, why = trace_survivors(runner, verdicts, choice)
        record.durations["differential"] = _since(t0)
        if why:
            record.skipped.append(why)
        settled = {
            k
            for k, m in verdicts.done.items()
            if m.difference is not None or m.reached == "not_executed"
        }
    t0 = time.monotonic()
    probed = probe_lines(runner, verdicts, choice, f2p, settled)
    record.durations["line_probes"] = _since(t0)
    if probed.unprobed:
        record.skipped.append(UNPROBED.format(n=probed.unprobed))
    return verdicts, probed


def _write_tests(
    runner: Runner,
    writer: TestWriter,
    record: TestStrength,
    choice: Choice,
    asked: tuple[int, list[str]],
) -> None:
    """The top `limit` survivors, each given a written test that catches it or, when the
    written tests ran and none held, marked possibly equivalent; a survivor whose language has
    no place a written test runs from is left as it is, and said. `judged`: the tests whose
    verdicts count, whose fix's own run names what was there before any test was written (a
    runner without our plugins runs them all with the written one)."""
    limit, judged = asked
    session = runner.session
    tests = test_files(session.job.test_patch)
    known: set[str] | None = set() if runner.plugins else None
    by_diff = {sources.diff(c.path, choice.originals[c.path], c.source): c for c in choice.chosen}
    for m in record.survivors[:limit]:
        if runner.left() <= 0:
            record.skipped.append("catching tests: budget")
            break
        place = written_place(session.language, session.tree, m.path, tests)
        if place is None:
            why = f"catching tests: no place a written test for {m.path} runs from"
            record.skipped += [why] if why not in record.skipped else []
            continue
        c = by_diff[m.diff]
        if known is None:  # made once, before any test is written
            known = set(runner.control(judged))
        held, record.written_by = catch(
            runner,
            writer,
            m,
            (c.source, choice.originals[c.path]),
            session.job.instance,
            (place, known),
        )
        m.possibly_equivalent = held is False


def _why_none(choice: Choice) -> str:
    if choice.chosen:
        return "no mutant was judged: each one's reason says why (the time budget, a cut run)"
    if choice.proven:
        return "no mutant to judge: every one was proven equivalent to the fix"
    if choice.unparsable:
        return f"no mutant: {', '.join(choice.unparsable)} do not parse"
    if choice.unreadable:
        return f"no mutant: no grammar reads {', '.join(choice.unreadable)}"
    if not choice.lines:
        return "no mutant: the fix changes no line of code that can matter"
    return "no mutant: the changed lines hold no mutable operator"

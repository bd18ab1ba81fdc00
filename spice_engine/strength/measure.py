"""Test strength of one instance's fix: ablation of its parts and mutation of its changed lines,
judged by the instance's tests (fail-to-pass and the touched files' pass-to-pass).

Every run goes through the `Executor` (so the sandbox); one environment and one worktree serve
the whole measurement.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from libcst import CSTValidationError

from spice_engine.errors import InputError
from spice_engine.langs import languages
from spice_engine.langs.executor import Executor
from spice_engine.redaction import redacted_excerpt
from spice_engine.runs.session import Job, Session, Status, check, open_session, stopped_by
from spice_engine.runs.validator import run_targets, test_files
from spice_engine.strength import sources
from spice_engine.strength.ablation import ablate
from spice_engine.strength.callee_messages import repository_sources, set_aside
from spice_engine.strength.catching import TestWriter, catch
from spice_engine.strength.choose import Choice, choose
from spice_engine.strength.mutant_runs import Outcomes, confirm, mutate, proven
from spice_engine.strength.new_tokens import new_tokens
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.plain_measure import measure_plain
from spice_engine.strength.private_renames import set_aside_renames
from spice_engine.strength.rank import classify, rank, unconfirmed
from spice_engine.strength.result import StrengthConfig, TestStrength, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.validate.outcomes import FAILING

Progress = Callable[[str], None]
"""Told each phase as it starts (`environment`, `12 mutants`, ...): minutes pass in each."""


def test_list(value: object) -> list[str]:
    """A FAIL_TO_PASS / PASS_TO_PASS field: a JSON-encoded list (SWE-bench's) or a list."""
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else []
    if not isinstance(value, list):
        raise InputError(f"expected a list of tests, got {type(value).__name__}")
    return [str(t) for t in value]


def judged_tests(
    instance: dict[str, object], language: str = "python"
) -> tuple[list[str], list[str]]:
    """The fail-to-pass tests, and the pass-to-pass tests of the files the test patch touches
    (another language's: all of them, as its validation ran them)."""
    f2p = test_list(instance.get("FAIL_TO_PASS") or "[]")
    if language != "python":
        return f2p, test_list(instance.get("PASS_TO_PASS") or "[]")
    touched = tuple(
        languages()[language].targets(test_files(str(instance.get("test_patch") or "")), [])
    )
    p2p = [t for t in test_list(instance.get("PASS_TO_PASS") or "[]") if t.startswith(touched)]
    return f2p, p2p


def measure(
    job: Job,
    executor: Executor,
    scratch: Path,
    config: StrengthConfig,
    progress: Progress | None = None,
    writer: TestWriter | None = None,
) -> TestStrength:
    """Never raises for a problem of the instance or its environment: that is a status.
    `progress` is told each phase; `writer`: the model asked for a test that catches each top
    survivor (Python only)."""
    started = time.monotonic()
    said = progress or (lambda phase: None)
    record = TestStrength(status=Status.ERROR)
    try:
        f2p, p2p = judged_tests(job.instance, job.language)
        if not f2p and not p2p:
            record.status, record.detail = Status.NO_FAIL_TO_PASS, "the instance lists no test"
        else:
            check(job, [job.test_patch, job.patch])
            said("environment")
            with open_session(job, executor, scratch) as session:
                try:
                    if job.language == "python":
                        _measure(session, config, record, (f2p, p2p), said, writer)
                    else:
                        said("mutants and ablation")
                        measure_plain(session, config, record, (f2p, p2p))
                finally:
                    record.durations |= session.durations
    except (ValueError, CSTValidationError) as exc:
        record.status, record.detail = Status.ERROR, redacted_excerpt(str(exc), tail=2000)
    except Exception as exc:
        if (stop := stopped_by(exc)) is None:
            raise
        record.status, record.detail = stop.status, stop.detail
    record.durations["total"] = round(time.monotonic() - started, 3)
    return record


def _measure(
    session: Session,
    config: StrengthConfig,
    record: TestStrength,
    lists: tuple[list[str], list[str]],
    said: Progress,
    writer: TestWriter | None = None,
) -> None:
    job, tree = session.job, session.tree
    f2p, p2p = lists
    tree.apply(job.test_patch)
    tree.apply(job.patch)
    runner = Runner(session, time.monotonic() + config.budget(), job.timeout_s)
    t0 = time.monotonic()
    lines = changed_lines(job.patch)
    fixed = {p: tree.source(p) for p in lines}
    choice = choose(fixed, lines, config.max_mutants, new_tokens(job.patch))
    base = str(job.instance["base_commit"])
    set_aside(choice, repository_sources(job.git_dir, base, fixed))
    set_aside_renames(choice, job.git_dir, base, fixed, job.test_patch)
    record.durations["choose"] = round(time.monotonic() - t0, 3)
    record.equivalent_skipped = choice.equivalent
    if choice.chosen:
        said(f"{len(choice.chosen)} mutants")
        t0 = time.monotonic()
        outcomes = mutate(runner, run_targets(job), f2p + p2p, choice, config)
        record.durations["mutants"] = round(time.monotonic() - t0, 3)
        if not isinstance(outcomes, str):  # a part of the above
            record.durations["differential"] = round(outcomes.differential_s, 3)
        if isinstance(outcomes, str) or (f2p and not set(f2p) & set(outcomes.judged)):
            record.status = Status.BASELINE_FAILED
            record.detail = (
                outcomes
                if isinstance(outcomes, str)
                else "no FAIL_TO_PASS test passes with the fix (in the mutant session)"
                + _failure_line(outcomes.log, f2p)
            )
            return
        said("survivors confirmed alone")
        t0 = time.monotonic()
        _judge(
            runner,
            outcomes,
            choice,
            config,
            (f2p, str(job.instance.get("problem_statement") or "")),
            record,
        )
        record.durations["confirm"] = round(time.monotonic() - t0, 3)
        record.tests = len(outcomes.judged)
    record.mutants += [proven(c, why, fixed[c.path]) for c, why in choice.proven]
    record.tally()
    if config.ablation and f2p:
        said("ablation")
        t0 = time.monotonic()
        ablate(runner, job.patch, f2p, record)
        record.durations["ablation"] = round(time.monotonic() - t0, 3)
    if writer is not None and config.catching_tests and record.survivors:
        t0 = time.monotonic()
        _write_tests(runner, writer, record, choice, (job.instance, f2p), config.catching_tests)
        record.durations["catching"] = round(time.monotonic() - t0, 3)
    record.say_budget(config)
    record.status = Status.MEASURED if record.mutants_tried else Status.NO_MUTANTS
    if not record.mutants_tried:
        record.detail = _why_none(choice, lines)


def _write_tests(
    runner: Runner,
    writer: TestWriter,
    record: TestStrength,
    choice: Choice,
    issue: tuple[dict[str, object], list[str]],
    limit: int,
) -> None:
    """The top survivors, each given a written test that catches it or, when the written tests
    ran and none held, marked possibly equivalent."""
    instance, f2p = issue
    by_diff = {sources.diff(c.path, choice.originals[c.path], c.source): c for c in choice.chosen}
    for m in record.survivors[:limit]:
        if runner.left() <= 0:
            record.skipped.append("catching tests: budget")
            break
        c = by_diff[m.diff]
        held, record.written_by = catch(
            runner, writer, m, c.source, choice.originals[c.path], instance, f2p
        )
        m.possibly_equivalent = held is False


def _judge(
    runner: Runner,
    out: Outcomes,
    choice: Choice,
    config: StrengthConfig,
    issue: tuple[list[str], str],
    record: TestStrength,
) -> None:
    """The survivors classed and ranked, the top ones confirmed alone, ranked again."""
    f2p, problem = issue
    switchable = {c.key for c in choice.chosen if c.site.switchable}
    classify(out.done, out.reached, f2p, switchable)
    rank(list(out.done.values()), problem)
    ranked = sorted((k for k, m in out.done.items() if m.rank), key=lambda k: out.done[k].rank)
    confirm(runner, out, ranked, config.confirm_survivors)
    classify(out.done, out.reached, f2p, switchable)  # with the confirmations' verdicts
    rank(list(out.done.values()), problem)
    for m in out.done.values():
        m.unconfirmed = unconfirmed(m) if m.verdict == Verdict.SURVIVED else ""
    alone = sum(m.verdict == Verdict.SURVIVED and m.run == "session" for m in out.done.values())
    if alone:
        why = "budget" if runner.left() <= 0 else f"only the top {config.confirm_survivors} are"
        record.skipped.append(
            f"{alone} survivor(s) judged in the shared session only, not re-run alone ({why})"
        )
    budget = sum(m.verdict == Verdict.NOT_RUN for m in out.done.values())
    if budget:
        record.skipped.append(f"{budget} mutant(s) not run: see each one's reason")
    record.mutants = [out.done[k] for k in sorted(out.done)]


def _why_none(choice: Choice, lines: dict[str, set[int]]) -> str:
    if choice.chosen:
        return "no mutant was judged: each one's reason says why (the time budget, a cut run)"
    if choice.proven:
        return "no mutant to judge: every one was proven equivalent to the fix"
    if choice.unparsable:
        return f"no mutant: {', '.join(choice.unparsable)} do not parse"
    if not lines:
        return "no mutant: the fix changes no Python line that can matter"
    return "no mutant: the changed lines hold no mutable operator"


def _failure_line(log: str, tests: list[str]) -> str:
    """pytest's summary line of the first of `tests` that failed (`-rA`: "FAILED id - why"),
    which often says what the sandbox lacks (e.g. a connection refused: no network)."""
    for line in log.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in FAILING and any(rest.startswith(t) for t in tests):
            return f": {redacted_excerpt(line, head=300)}"
    return ""

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
from spice_engine.redaction import redacted_excerpt
from spice_engine.strength import sources
from spice_engine.strength.ablation import ablate
from spice_engine.strength.choose import Choice, Chosen, choose, schema_sources
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.plain_measure import measure_plain
from spice_engine.strength.result import MutantOutcome, StrengthConfig, TestStrength
from spice_engine.strength.runs import Runner
from spice_engine.validate.executor import Executor
from spice_engine.validate.outcomes import FAILING, passed
from spice_engine.validate.session import Job, Session, Status, check, open_session, stopped_by
from spice_engine.validate.validator import test_files

Progress = Callable[[str], None]
"""Told each phase as it starts (`environment`, `12 mutants`, ...): minutes pass in each."""

SESSION_ROUNDS = 4
"""Sessions at most for the switchable mutants (a crash ends one; the next goes on)."""


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
    touched = tuple(test_files(str(instance.get("test_patch") or "")))
    p2p = [t for t in test_list(instance.get("PASS_TO_PASS") or "[]") if t.startswith(touched)]
    return f2p, p2p


def measure(
    job: Job,
    executor: Executor,
    scratch: Path,
    config: StrengthConfig,
    progress: Progress | None = None,
) -> TestStrength:
    """Never raises for a problem of the instance or its environment: that is a status."""
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
                        _measure(session, config, record, (f2p, p2p), said)
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
) -> None:
    job, tree = session.job, session.tree
    f2p, p2p = lists
    tree.apply(job.test_patch)
    tree.apply(job.patch)
    runner = Runner(session, time.monotonic() + config.budget_s, job.timeout_s)
    lines = changed_lines(job.patch)
    fixed = {p: tree.source(p) for p in lines}
    choice = choose(fixed, lines, config.max_mutants)
    record.equivalent_skipped = choice.equivalent
    if choice.chosen:
        said(f"{len(choice.chosen)} mutants")
        t0 = time.monotonic()
        outcomes = _mutate(runner, test_files(job.test_patch), f2p + p2p, choice, config)
        record.durations["mutants"] = round(time.monotonic() - t0, 3)
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
        _confirm(runner, fixed, outcomes, config.confirm_survivors)
        record.durations["confirm"] = round(time.monotonic() - t0, 3)
        record.tests = len(outcomes.judged)
        record.mutants = outcomes.done
        record.not_run = len(choice.chosen) - len(outcomes.done)
        record.mutants_tried = len(outcomes.done)
        record.mutants_killed = sum(m.killed_by is not None for m in outcomes.done)
        if record.mutants_tried:
            record.score = round(record.mutants_killed / record.mutants_tried, 4)
    if config.ablation and f2p:
        said("ablation")
        t0 = time.monotonic()
        ablate(runner, job.patch, f2p, record)
        record.durations["ablation"] = round(time.monotonic() - t0, 3)
    record.status = Status.MEASURED if record.mutants_tried else Status.NO_MUTANTS
    if not record.mutants_tried:
        record.detail = _why_none(choice.chosen, choice.unparsable, lines)


def _why_none(chosen: list[Chosen], unparsable: list[str], lines: dict[str, set[int]]) -> str:
    if chosen:
        return "the time budget ran out before any mutant ran"
    if unparsable:
        return f"no mutant: {', '.join(unparsable)} do not parse"
    if not lines:
        return "no mutant: the fix changes no Python line"
    return "no mutant: the changed lines hold no mutable operator"


class _Outcomes:
    def __init__(self, judged: list[str], chosen: list[Chosen]) -> None:
        self.judged = judged
        self.log = ""
        """The first session's log."""
        self.by_key = {c.key: c for c in chosen}
        self.done: list[MutantOutcome] = []
        self.unstable: list[str] = []
        """Judged tests that failed their control rerun in the session: they judge the
        session's survivors again in processes of their own."""

    def add(self, c: Chosen, killed_by: str | None, run: str, fixed: str) -> None:
        self.done.append(
            MutantOutcome(
                path=c.path,
                line=c.site.line,
                function=c.site.function,
                operator=c.site.operator,
                change=c.site.change,
                diff=sources.diff(c.path, fixed, c.source),
                killed_by=killed_by,
                run="session" if run == "session" else "process",
            )
        )


def _mutate(
    runner: Runner,
    files: list[str],
    tests: list[str],
    choice: Choice,
    config: StrengthConfig,
) -> _Outcomes | str:
    """Each chosen mutant's outcome; a string says why none could be judged."""
    tree, chosen, fixed = runner.session.tree, choice.chosen, choice.originals
    # The schema of the switchable ones; the rest (code run at import) one process each.
    switchable = [c for c in chosen if c.site.switchable]
    only = Choice(switchable, 0, [], fixed, choice.lines)
    for path, text in schema_sources(only).items():
        tree.put(path, text)
    todo = [c.key for c in switchable]
    judged: list[str] | None = None
    out: _Outcomes | None = None
    log = ""
    for n in range(SESSION_ROUNDS):
        if n and (not todo or runner.left() <= 0):
            break
        got = runner.mutant_session(files, tests, todo, config.per_test_s)
        log = got.log
        if got.baseline is None:
            break
        if judged is None:
            judged = got.baseline
            out = _Outcomes(judged, chosen)
            out.log = got.log
        assert out is not None
        out.unstable += [t for t in got.unstable if t not in out.unstable]
        for key, killer in got.killed_by.items():
            out.add(out.by_key[key], killer, "session", fixed[out.by_key[key].path])
        if got.crashed is not None and not got.timed_out:
            out.add(out.by_key[got.crashed], "the test session crashed", "session",
                    fixed[out.by_key[got.crashed].path])  # fmt: skip
        finished = set(got.killed_by) | ({got.crashed} if got.crashed is not None else set())
        todo = [k for k in todo if k not in finished]
        if got.timed_out:
            break
    for path in fixed:
        tree.restore(path)
    if judged is None:
        if not switchable:
            judged = tests
            out = _Outcomes(judged, chosen)
        else:
            return (
                f"the test session did not get to the mutants: {redacted_excerpt(log, tail=3000)}"
            )
    assert out is not None
    if not judged:
        return "no judged test passes with the fix (in the mutant session)"
    for c in chosen:
        if c.site.switchable or runner.left() <= 0:
            continue
        out.add(c, _plain_run(runner, c, judged, fixed[c.path]), "process", fixed[c.path])
    return out


def _failure_line(log: str, tests: list[str]) -> str:
    """pytest's summary line of the first of `tests` that failed (`-rA`: "FAILED id - why"),
    which often says what the sandbox lacks (e.g. a connection refused: no network)."""
    for line in log.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in FAILING and any(rest.startswith(t) for t in tests):
            return f": {redacted_excerpt(line, head=300)}"
    return ""


def _plain_run(runner: Runner, c: Chosen, judged: list[str], fixed: str) -> str | None:
    """The first judged test that does not pass with the mutant's plain source in place (the
    test files run whole, as SWE-bench's harness would grade this wrong fix)."""
    tree = runner.session.tree
    tree.put(c.path, c.source)
    try:
        done = runner.outcomes(judged, whole_files=True)
    finally:
        tree.restore(c.path)
    if done.killed:
        return f"the run was stopped ({done.killed})"
    return next((t for t in judged if not passed(done.outcomes, t)), None)


def _confirm(runner: Runner, fixed: dict[str, str], out: _Outcomes, limit: int) -> None:
    """Survivors of the session re-run alone, as plain sources: up to `limit`, or every one
    when some judged test could not judge in the session (those left undone are dropped: not
    run)."""
    by_diff = {sources.diff(c.path, fixed[c.path], c.source): c for c in out.by_key.values()}
    survivors = [m for m in out.done if m.killed_by is None and m.run == "session"]
    must = bool(out.unstable)
    for m in survivors if must else survivors[:limit]:
        if runner.left() <= 0:
            break
        killer = _plain_run(runner, by_diff[m.diff], out.judged, fixed[m.path])
        m.run = "process"
        if killer is not None:
            m.killed_by = killer
    if must:
        out.done = [m for m in out.done if not (m.killed_by is None and m.run == "session")]

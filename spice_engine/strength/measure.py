"""Test strength of one instance's fix: ablation of its parts and mutation of its changed lines,
judged by the instance's tests (fail-to-pass and the touched files' pass-to-pass).

Every run goes through the `Executor` (so the sandbox); one environment and one worktree serve
the whole measurement (spice_engine.strength.driver).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from libcst import CSTValidationError

from spice_engine.errors import InputError
from spice_engine.langs.executor import Executor
from spice_engine.redaction import redacted_excerpt
from spice_engine.runs.session import Job, Status, check, open_session, stopped_by
from spice_engine.runs.validator import test_files
from spice_engine.strength.catching import TestWriter
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.driver import Progress, measure_fix
from spice_engine.strength.result import TestStrength

NO_TEST = "the instance lists no test"


def test_list(value: object) -> list[str]:
    """A FAIL_TO_PASS / PASS_TO_PASS field: a JSON-encoded list (SWE-bench's) or a list."""
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else []
    if not isinstance(value, list):
        raise InputError(f"expected a list of tests, got {type(value).__name__}")
    return [str(t) for t in value]


def judged_tests(instance: dict[str, object], by_file: bool) -> tuple[list[str], list[str]]:
    """The fail-to-pass tests, and the pass-to-pass tests: with `by_file` (ids that start with
    their file, as pytest's do) those of the files the test patch touches, else all of them
    (as validation ran them)."""
    f2p = test_list(instance.get("FAIL_TO_PASS") or "[]")
    p2p = test_list(instance.get("PASS_TO_PASS") or "[]")
    if not by_file:
        return f2p, p2p
    touched = tuple(test_files(str(instance.get("test_patch") or "")))
    return f2p, [t for t in p2p if t.startswith(touched)]


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
    survivor (where the runner takes our plugins)."""
    started = time.monotonic()
    said = progress or (lambda phase: None)
    record = TestStrength(status=Status.ERROR)
    try:
        if not any(judged_tests(job.instance, by_file=False)):
            record.status, record.detail = Status.NO_FAIL_TO_PASS, NO_TEST
        else:
            check(job, [job.test_patch, job.patch])
            said("environment")
            with open_session(job, executor, scratch) as session:
                try:
                    lists = judged_tests(job.instance, by_file=session.takes_plugins)
                    if any(lists):
                        # The budget counts from the start: preparing the environment is
                        # part of what a measurement costs.
                        ends = started + config.deadline_s()
                        measure_fix(session, config, record, lists, said, ends, writer)
                    else:
                        record.status, record.detail = Status.NO_FAIL_TO_PASS, NO_TEST
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

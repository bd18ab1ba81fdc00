"""A mutant's verdict checked on its own: the instance's base with the test patch, the fix and
the mutant's diff applied in a fresh worktree, its test files run once in the sandbox (whole, as
SWE-bench's harness grades a patch). What a
builder (or the benchmark, or a test) uses to confirm that a reported survivor really is a wrong
fix the tests accept and that a killed mutant really fails one."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_versions import Group
from spice_engine.runs.session import Job, open_session
from spice_engine.strength.measure import judged_tests
from spice_engine.strength.runs import Runner
from spice_engine.validate.outcomes import passed


def passed_with(
    executor: Executor,
    git_dir: Path,
    row: dict[str, Any],
    group: Group,
    diff: str,
    scratch: Path,
    timeout_s: float = 900.0,
) -> dict[str, bool]:
    """Judged test -> passed, with the test patch, the fix and `diff` ("" for the fix alone)."""
    if group.recipe is None:
        raise ValueError(f"no environment for {row.get('instance_id')}: {group.error}")
    job = Job(instance=row, git_dir=git_dir, version=group.version, recipe=group.recipe)
    with open_session(job, executor, scratch) as session:
        f2p, p2p = judged_tests(row, by_file=session.takes_plugins)
        for patch in (job.test_patch, job.patch, diff):
            session.tree.apply(patch)
        # As SWE-bench's harness grades a patch: the test files run whole.
        runner = Runner(session, time.monotonic() + timeout_s, timeout_s)
        done = runner.outcomes(f2p + p2p, whole_files=True)
    return {t: passed(done.outcomes, t) for t in f2p + p2p}


def verdicts_hold(
    executor: Executor,
    git_dir: Path,
    row: dict[str, Any],
    group: Group,
    mutants: list[dict[str, Any]],
    scratch: Path,
) -> tuple[int, list[bool]]:
    """How many judged tests pass with the fix alone, and for each mutant (as exported in
    `spice.test_strength.mutants`, survived or killed) whether its verdict holds on its own: a
    survivor passes every one of those, a killed mutant fails at least one."""
    alone = passed_with(executor, git_dir, row, group, "", scratch)
    fixed = [t for t, ok in alone.items() if ok]
    if not fixed:  # nothing would judge: every mutant would "pass" all of nothing
        return 0, []
    holds = []
    for m in mutants:
        outcome = passed_with(executor, git_dir, row, group, str(m["diff"]), scratch)
        passes = all(outcome.get(t) for t in fixed)
        holds.append(passes if m["verdict"] == "survived" else not passes)
    return len(fixed), holds

"""A mutant's verdict checked on its own: the instance's base with the test patch, the fix and
the mutant's diff applied in a fresh worktree, its test files run once in the sandbox (whole, as
SWE-bench's harness grades a patch). What a
builder (or the benchmark, or a test) uses to confirm that a reported survivor really is a wrong
fix the tests accept and that a killed mutant really fails one."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from spice_engine.strength.measure import judged_tests
from spice_engine.strength.runs import run_tests
from spice_engine.validate import gitwork
from spice_engine.validate.executor import Executor
from spice_engine.validate.outcomes import parse_pytest_log
from spice_engine.validate.plan import Group


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
    f2p, p2p = judged_tests(row)
    scratch.mkdir(parents=True, exist_ok=True)
    job = Path(tempfile.mkdtemp(dir=scratch, prefix="recheck-"))
    try:
        with gitwork.worktree(git_dir, str(row["base_commit"]), job) as tree:
            prepared = executor.prepare(str(row["repo"]), group.version, group.recipe, tree, job)
            for patch in (row.get("test_patch"), row.get("patch"), diff):
                if patch:
                    gitwork.apply(tree, str(patch))
            # As SWE-bench's harness grades a patch: the test files run whole.
            judged = f2p + p2p
            done = run_tests(executor, prepared, tree, judged, job / "selected", timeout_s, True)
    finally:
        shutil.rmtree(job, ignore_errors=True)
    outcomes = parse_pytest_log(done.log)
    return {t: outcomes.get(t) == "PASSED" for t in f2p + p2p}


def verdicts_hold(
    executor: Executor,
    git_dir: Path,
    row: dict[str, Any],
    group: Group,
    mutants: list[dict[str, Any]],
    scratch: Path,
) -> tuple[int, list[bool]]:
    """How many judged tests pass with the fix alone, and for each mutant (as exported in
    `spice.test_strength.mutants`) whether its verdict holds on its own: a survivor passes every
    one of those, a killed mutant fails at least one."""
    alone = passed_with(executor, git_dir, row, group, "", scratch)
    fixed = [t for t, ok in alone.items() if ok]
    if not fixed:  # nothing would judge: every mutant would "pass" all of nothing
        return 0, []
    holds = []
    for m in mutants:
        outcome = passed_with(executor, git_dir, row, group, str(m["diff"]), scratch)
        passes = all(outcome.get(t) for t in fixed)
        holds.append(passes if m["killed_by"] is None else not passes)
    return len(fixed), holds

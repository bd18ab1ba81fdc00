"""Test strength measured in the sandbox on a tiny project: a weak test lets a wrong fix
through (a survivor, which passes the tests when applied on its own) and misses a part of the
fix; a strong test kills every mutant."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job, open_session
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength
from spice_engine.strength.runs import Runner
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.strength_support import FIX, STRONG, UNTESTED, WEAK, calc_instance
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])


@pytest.fixture(name="envs", scope="module")
def envs_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One environment for the module's instances (same project, same recipe)."""
    return tmp_path_factory.mktemp("envs")


def _measure(
    repo: Path,
    row: dict[str, str],
    executor: Executor,
    tmp: Path,
    said: list[str] | None = None,
) -> TestStrength:
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    progress = said.append if said is not None else None
    return measure(job, executor, tmp / "scratch", StrengthConfig(budget_s=120), progress)


def test_weak_tests_let_a_wrong_fix_through(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    executor = Executor(envs, sandbox)
    repo, row = calc_instance(tmp_path, WEAK, FIX | UNTESTED)  # add(2, 0) == 2 holds for a - b too
    got = _measure(repo, row, executor, tmp_path)
    assert got.status == "measured", got.detail
    survivor, untested = got.survivors
    assert survivor.change == "`+` → `-`" and survivor.function == "add"
    # The differential run: add(2, 0) cannot tell them apart, its neighbour add(2, 1) does.
    assert survivor.difference == "nearby" and untested.difference is None
    assert survivor.difference_in == "returned"
    # Shown as a wrong fix only with evidence: `SEP` runs at import, where no run watches.
    assert survivor.shown and got.headline == survivor
    assert not untested.shown and untested.unconfirmed.startswith("code run at import")
    assert "-    return a + b\n+    return a - b\n" in survivor.diff
    assert untested.path == "notes.py" and untested.run == "process"  # runs at import
    assert got.mutants_tried == 3 and got.mutants_killed == 1
    assert [(u.path, u.hunk) for u in got.untested] == [("notes.py", None)]
    assert list((tmp_path / "scratch").iterdir()) == []
    # The survivor is a real wrong fix: with the test patch, the tests pass (run in the sandbox).
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE)
    with open_session(job, executor, tmp_path / "scratch") as session:
        for patch in (row["test_patch"], row["patch"], survivor.diff):
            session.tree.apply(patch)
        done = session.run("survivor", ["tests/test_calc.py"], 60)
    assert done.outcomes == {
        "tests/test_calc.py::test_add": "PASSED",
        "tests/test_calc.py::test_mul": "PASSED",
    }


def test_strong_tests_kill_every_mutant(tmp_path: Path, envs: Path, sandbox: Bubblewrap) -> None:
    repo, row = calc_instance(tmp_path, STRONG, FIX)
    said: list[str] = []
    got = _measure(repo, row, Executor(envs, sandbox), tmp_path, said)
    assert got.status == "measured", got.detail
    assert got.survivors == [] and got.score == 1.0 and got.mutants_tried == 2
    assert {m.killed_by for m in got.mutants} == {"tests/test_calc.py::test_add"}
    # Each phase is said as it starts: minutes pass in each (`spice test-strength` prints them).
    assert said == ["environment", "2 mutants", "survivors confirmed alone", "ablation"]


ONCE = (
    "\n\nRUNS = []\n\n\ndef test_add():\n    from calc import add\n    RUNS.append(1)\n"
    "    assert len(RUNS) == 1  # leaves state behind: fails a second run in its session\n"
    "    assert add(2, 0) == 2\n"
)


def test_a_test_that_fails_its_second_run_in_a_session_kills_nothing_there(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_instance(tmp_path, ONCE, FIX)
    got = _measure(repo, row, Executor(envs, sandbox), tmp_path)
    assert got.status == "measured", got.detail
    # In the session every mutant would "fail" it; judged alone, `a - b` passes it.
    (survivor,) = got.survivors
    assert survivor.change == "`+` → `-`" and survivor.run == "process"
    assert got.mutants_tried == 2 and got.mutants_killed == 1


NAMED = (
    "\n\nimport pytest\n\n\n@pytest.mark.parametrize('s', ['a b', 'a/b', 'x\\ny', '[z'])\n"
    "def test_named(s):\n    from calc import add\n    assert add(2, 3) == 5\n"
)
"""Test ids no command line can name: a space (SWE-bench's log parser cuts the id there), a
slash, an escape and a bracket inside the brackets."""


def test_tests_with_ids_no_command_line_can_name_still_judge(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_instance(tmp_path, NAMED, FIX)
    named = ["test_named[a", "test_named[a/b]", "test_named[x\\ny]", "test_named[[z]"]
    f2p = [f"tests/test_calc.py::{t}" for t in named]
    row["FAIL_TO_PASS"] = json.dumps(f2p)
    executor = Executor(envs, sandbox)
    got = _measure(repo, row, executor, tmp_path)
    assert got.status == "measured", got.detail
    assert got.tests == 5  # the four named, and test_mul
    # Run alone, in a process of its own (as survivors are confirmed), the wrong fix fails them.
    (first,) = [m for m in got.mutants if m.change == "`+` → `-`"]
    assert first.killed_by in f2p and got.survivors == []
    # And the fix alone passes every one of them.
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE)
    with open_session(job, executor, tmp_path / "alone") as session:
        for patch in (row["test_patch"], row["patch"]):
            session.tree.apply(patch)
        done = Runner(session, time.monotonic() + 120, 120).outcomes(f2p)
    assert [done.outcomes.get(t) for t in f2p] == ["PASSED"] * 4, done.log[-2000:]


SEP_TEST = "\n\ndef test_sep():\n    from notes import SEP\n    assert SEP == ', '\n"


def test_a_fix_run_only_at_import_is_judged_by_the_tests_that_pass_with_it(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    # The fix changes a module constant: its mutants cannot be switched in a session, each runs
    # in a process of its own, but the session still says which listed tests pass with the fix.
    repo, row = calc_instance(tmp_path, SEP_TEST, UNTESTED)
    gone = "tests/test_calc.py::test_gone"  # listed, yet no such test (a stale list)
    row["FAIL_TO_PASS"] = json.dumps([gone, "tests/test_calc.py::test_sep"])
    got = _measure(repo, row, Executor(envs, sandbox), tmp_path)
    assert got.status == "measured", got.detail
    assert got.mutants and {m.run for m in got.mutants} == {"process"}
    assert {m.killed_by for m in got.mutants} == {"tests/test_calc.py::test_sep"}


OFFLINE = (
    "\n\ndef test_add():\n    import socket\n    from calc import add\n"
    "    socket.create_connection(('example.org', 80), timeout=5)\n    assert add(2, 3) == 5\n"
)


def test_a_fix_its_tests_cannot_pass_here_says_why(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_instance(tmp_path, OFFLINE, FIX)  # tests get no network in the sandbox
    got = _measure(repo, row, Executor(envs, sandbox), tmp_path)
    assert got.status == "baseline_failed"
    assert got.detail.startswith("no FAIL_TO_PASS test passes with the fix")
    assert "FAILED tests/test_calc.py::test_add - socket.gaierror" in got.detail, got.detail

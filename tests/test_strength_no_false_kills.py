"""No false kills (issue 49, item 3): a judged test that did not run under a mutant is no kill.
Runs in the sandbox: a test the mutant's run does not report, a test file the mutant stops from
loading; and a run that reports no result, read against the fix's own run of the same tests."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job, Run, Session, open_session
from spice_engine.strength.choose import Choice, choose
from spice_engine.strength.mutant_runs import judge_alone
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.result import Verdict
from spice_engine.strength.run_verdict import run_verdict
from spice_engine.strength.runs import Runner
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.outcomes import TestStatus
from tests.strength_support import FIX, calc_instance
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])
FILE = "tests/test_calc.py"
ADD, MUL = f"{FILE}::test_add", f"{FILE}::test_mul"


@pytest.fixture(name="envs", scope="module")
def envs_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("envs")


@contextmanager
def _session(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap, test: str, fix: dict[str, str]
) -> Iterator[tuple[Session, Choice]]:
    repo, row = calc_instance(tmp_path, test, fix)
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    with open_session(job, Executor(envs, sandbox), tmp_path / "scratch") as session:
        session.tree.apply(job.test_patch)
        session.tree.apply(job.patch)
        lines = changed_lines(job.patch)
        yield session, choose({p: session.tree.source(p) for p in lines}, lines, 10)


DEFINED_IF_ADDS = (
    "\n\nfrom calc import add as _add\n\nif _add(1, 1) == 2:\n\n"
    "    def test_add():\n        assert _add(2, 0) == 2\n"
)
"""`test_add` exists only while `add` adds: under `a - b` it is never collected."""


def test_a_judged_test_missing_from_the_mutants_run_is_not_run_not_a_kill(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    with _session(tmp_path, envs, sandbox, DEFINED_IF_ADDS, FIX) as (session, choice):
        wrong = next(c for c in choice.chosen if c.site.change == "`+` → `-`")
        runner = Runner(session, time.monotonic() + 120, 120)
        got = judge_alone(runner, [ADD, MUL], wrong, choice.originals[wrong.path])
        # Before: the first judged test not PASSED was the killer, though it never ran.
        assert (got.verdict, got.killed_by, got.run) == (Verdict.NOT_RUN, None, "process")
        assert got.reason == f"its tests did not run: {ADD} is missing from its run's results"
        assert runner.controls[(ADD, MUL)] == {ADD: "PASSED", MUL: "PASSED"}


LOADS_LIMIT = "\n\nimport calc\n\n\ndef test_limit():\n    assert calc.LIMIT == 3\n"
LIMIT_FIX = {"calc.py": FIX["calc.py"] + '\n\nLIMIT = int("3")\n'}
"""The string mutant `int("XX3XX")` raises when `calc` is imported: the test file does not load."""


def test_a_mutant_its_test_file_cannot_load_with_is_not_run_not_a_kill(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    with _session(tmp_path, envs, sandbox, LOADS_LIMIT, LIMIT_FIX) as (session, choice):
        (broken,) = [c for c in choice.chosen if c.site.operator == "string"]
        limit = "tests/test_calc.py::test_limit"
        runner = Runner(session, time.monotonic() + 120, 120)
        got = judge_alone(runner, [limit, MUL], broken, choice.originals[broken.path])
        assert (got.verdict, got.killed_by) == (Verdict.NOT_RUN, None)
        assert got.reason == f"its tests did not run: {FILE} did not load under the mutant"


def _run(outcomes: dict[str, TestStatus], killed: str | None = None) -> Run:
    return Run(outcomes=outcomes, messages=[], log="", seconds=1.0, killed=killed)


PASSED, FAILED = TestStatus.PASSED, TestStatus.FAILED


def test_a_run_is_read_against_the_fixs_own_run_of_the_same_tests() -> None:
    both, fix = [ADD, MUL], {ADD: PASSED, MUL: PASSED}
    said = run_verdict(_run({ADD: FAILED, MUL: PASSED}), both, False, fix, True)
    assert (said.verdict, said.killed_by) == (Verdict.KILLED, ADD)
    # An old pytest's `-rA` prints no PASSED line: the fix's run shows none either.
    said = run_verdict(_run({}), both, False, {}, True)
    assert said.verdict == Verdict.NOT_RUN and "nor with the fix" in said.reason
    # A compiled language's build that fails reports no test: no kill.
    said = run_verdict(_run({}), both, False, fix, died_is_kill=False)
    assert said.verdict == Verdict.NOT_RUN and "does not build" in said.reason
    # pytest reports a file that fails to load: a run with no result died under the mutant.
    said = run_verdict(_run({}), both, False, fix, died_is_kill=True)
    assert (said.verdict, said.killed_by) == (Verdict.KILLED, ADD)
    # Cut by the sandbox or the budget: no verdict, whatever it reported.
    said = run_verdict(_run({ADD: FAILED}, killed="timeout"), both, True, fix, True)
    assert (said.verdict, said.reason) == (Verdict.NOT_RUN, "cut off: the time budget")
    said = run_verdict(_run({ADD: PASSED, MUL: PASSED}), both, False, fix, True)
    assert said.verdict == Verdict.SURVIVED

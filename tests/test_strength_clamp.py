"""Issue 37's acceptance on `clamp()`: strong tests leave no survivor; weak tests leave some,
none of them the boundary mutant `x < lo` → `x <= lo` (equivalent: at `x == lo` both return
`lo`), which is reported as `equivalent` with its proof and never as a wrong fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength, Verdict
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.strength_support import CLAMP_STRONG, CLAMP_WEAK, clamp_instance
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])


@pytest.fixture(name="envs", scope="module")
def envs_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("envs")


def _measure(tmp_path: Path, envs: Path, sandbox: Bubblewrap, test: str) -> TestStrength:
    repo, row = clamp_instance(tmp_path, test)
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    executor = Executor(envs, sandbox)
    got = measure(job, executor, tmp_path / "scratch", StrengthConfig(budget_s=120))
    assert got.status == "measured", got.detail
    return got


def _boundaries(got: TestStrength) -> list[str]:
    return [m.change for m in got.mutants if "<=" in m.change or ">=" in m.change]


def test_strong_tests_leave_no_survivor(tmp_path: Path, envs: Path, sandbox: Bubblewrap) -> None:
    got = _measure(tmp_path, envs, sandbox, CLAMP_STRONG)
    verdicts = [m.verdict for m in got.mutants]
    assert Verdict.SURVIVED not in verdicts, [m.change for m in got.survivors]
    assert got.score == 1.0 and got.mutants_tried == verdicts.count(Verdict.KILLED) >= 5
    assert all(m.killed_by == "tests/test_calc.py::test_clamp" for m in got.mutants if m.killed_by)
    # The two boundary mutants are proven equivalent, not run, not counted in the score.
    assert sorted(_boundaries(got)) == ["`< lo` → `<= lo`", "`> hi` → `>= hi`"]
    equivalent = [m for m in got.mutants if m.verdict == Verdict.EQUIVALENT]
    assert {m.change for m in equivalent} == set(_boundaries(got))
    assert all(m.reason.startswith("boundary") and m.run == "none" for m in equivalent)
    assert got.skipped == []


def test_weak_tests_leave_survivors_but_never_the_boundary(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    got = _measure(tmp_path, envs, sandbox, CLAMP_WEAK)
    survivors = got.survivors
    assert len(survivors) >= 1
    assert all("<=" not in m.change for m in survivors), [m.change for m in survivors]
    assert {m.verdict for m in got.mutants if "<=" in m.change} == {Verdict.EQUIVALENT}
    # Judged mutants only: killed / (killed + survived).
    assert got.score == round(got.mutants_killed / (got.mutants_killed + len(survivors)), 4)
    # The upper bound's line is executed by the fail-to-pass test but not checked: its wrong
    # fixes rank first, a changed condition before a removed statement, confirmed alone.
    top = got.headline
    assert top is not None and top.rank == 1 and top.change == "`x > hi` negated"
    assert top.reached == "executed_unchecked" and top.by_fail_to_pass and top.run == "process"
    assert top.difference == "tests"  # clamp(15, 0, 10) returns 15, and nothing checks it
    assert top.difference_in == "returned"
    # `return x` is never reached by a test: said so, and ranked below.
    (last,) = [m for m in survivors if m.line == 7]
    assert last.reached == "not_executed" and not last.by_fail_to_pass and last.rank > top.rank

"""Typed verdicts: `killed_by` only ever a test id, a run cut off by the budget `not_run` (not a
kill), a session crashed under a mutant judged again alone, the score from judged mutants only,
and what the budget cut said (issue 37)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job, Session, open_session
from spice_engine.strength.ablation import ablate
from spice_engine.strength.batch import validation_seconds
from spice_engine.strength.choose import Choice, choose
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.mutant_runs import judge_alone, mutate
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.result import MutantOutcome, TestStrength, Verdict
from spice_engine.strength.runs import Runner
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.strength_support import FIX, STRONG, UNTESTED, WEAK, calc_instance
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])
ADD = "tests/test_calc.py::test_add"


@pytest.fixture(name="envs", scope="module")
def envs_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("envs")


@contextmanager
def _fixed(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap, test: str, fix: dict[str, str]
) -> Iterator[tuple[Job, Session, Choice]]:
    """A session of the calc instance with its test patch and fix applied, and up to five
    mutants of the fix chosen."""
    repo, row = calc_instance(tmp_path, test, fix)
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    with open_session(job, Executor(envs, sandbox), tmp_path / "scratch") as session:
        session.tree.apply(job.test_patch)
        session.tree.apply(job.patch)
        lines = changed_lines(job.patch)
        yield job, session, choose({p: session.tree.source(p) for p in lines}, lines, 5)


def _mutant(verdict: Verdict) -> MutantOutcome:
    return MutantOutcome(path="a.py", line=1, operator="x", change="x", diff="", verdict=verdict)


def test_the_score_counts_judged_mutants_only() -> None:
    got = TestStrength(status="measured")
    got.mutants = [_mutant(v) for v in ("killed", "killed", "survived", "equivalent", "not_run")]
    got.tally()
    assert (got.mutants_killed, got.mutants_tried, got.not_run) == (2, 3, 1)
    assert got.score == 0.6667


SLOW = STRONG.replace("    from calc", "    __import__('time').sleep(3)\n    from calc")


def test_a_run_the_budget_cuts_off_is_not_run_not_a_kill(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    with _fixed(tmp_path, envs, sandbox, SLOW, FIX) as (_, session, choice):
        wrong = next(c for c in choice.chosen if c.site.change == "`+` → `-`")
        fixed = choice.originals[wrong.path]
        # Under a second of budget left: the run starts, and is cut before its test ends.
        cut = judge_alone(Runner(session, time.monotonic() + 0.2, 120), [ADD], wrong, fixed)
        assert (cut.verdict, cut.killed_by, cut.run) == (Verdict.NOT_RUN, None, "process")
        assert cut.reason.startswith("cut off: the time budget"), cut.reason
        # With time, the same mutant is killed, by a test id.
        again = judge_alone(Runner(session, time.monotonic() + 120, 120), [ADD], wrong, fixed)
        assert (again.verdict, again.killed_by) == ("killed", ADD)


CRASH = {
    "calc.py": "import os\n\n\ndef add(a, b):\n    if a < 0:\n        os._exit(3)\n"
    "    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
}
"""A fix whose negated condition ends the test process: the session crashes under it."""


def test_a_session_that_crashes_under_a_mutant_names_a_test_or_no_kill(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_instance(tmp_path, STRONG, CRASH)
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    got = measure(job, Executor(envs, sandbox), tmp_path / "s", StrengthConfig(budget_s=120))
    assert got.status == "measured", got.detail
    (negated,) = [m for m in got.mutants if m.change == "`a < 0` negated"]
    assert negated.verdict == Verdict.KILLED and negated.killed_by == ADD
    assert negated.run == "process"  # judged again alone, not "the test session crashed"
    tests = {ADD, "tests/test_calc.py::test_mul"}
    assert all(m.killed_by in tests for m in got.mutants if m.verdict == Verdict.KILLED)
    assert all(m.killed_by is None for m in got.mutants if m.verdict != Verdict.KILLED)


def test_what_the_budget_cuts_is_said(tmp_path: Path, envs: Path, sandbox: Bubblewrap) -> None:
    with _fixed(tmp_path, envs, sandbox, WEAK, FIX | UNTESTED) as (job, session, choice):
        spent = Runner(session, time.monotonic() - 1, 120)  # the budget is gone
        out = mutate(spent, ["tests/test_calc.py"], [ADD], choice, StrengthConfig())
        assert len(out.done) == len(choice.chosen) == 3
        assert {m.verdict for m in out.done.values()} == {Verdict.NOT_RUN}
        assert {m.reason for m in out.done.values()} == {
            "time budget: not reached",  # the session's (its plugin got no time)
            "time budget: not run alone",  # the import-time mutant's
        }
        record = TestStrength(status="measured")
        ablate(spent, job.patch, [ADD], record)
    # Not "0 untested parts": the check did not happen, and says so.
    assert (record.parts_checked, record.parts_total, record.untested) == (0, 2, [])
    assert record.skipped == ["hunk check skipped: budget (0 of 2 parts checked)"]


def test_a_quick_instance_gets_a_budget_in_proportion_to_its_own_validation() -> None:
    row = {
        "spice": {"validation": {"status": "valid", "durations": {"total": 9, "environment": 3}}}
    }
    assert validation_seconds(row) == 6.0  # its test runs, not its environment
    assert validation_seconds({"spice": {"validation": {"status": "error"}}}) is None
    assert validation_seconds({}) is None
    config = StrengthConfig(budget_s=600, validation_s=6.0)
    assert config.budget() == 18.0 and "3× the validation's 6 s" in config.budget_said()
    floored = StrengthConfig(budget_s=600, validation_s=4.0)
    assert floored.budget() == 15.0  # the floor
    assert (
        floored.budget_said()
        == "15 s: the least a measure gets (3.8× the validation's 4 s of test runs)"
    )
    assert StrengthConfig(budget_s=600, validation_s=1.0).budget() == 15.0  # 15×: the floor
    assert StrengthConfig(budget_s=16, validation_s=6.0).budget() == 16.0  # never above
    assert StrengthConfig(budget_s=600).budget() == 600.0  # no validation known
    assert StrengthConfig(budget_s=600, validation_s=0.0).budget() == 600.0  # nor a 0 s one
    assert config.deadline_s() == 17.0  # the last second for ending the session
    assert StrengthConfig(budget_s=600).deadline_s() == 594.0


def test_what_a_budget_in_proportion_cuts_is_said_with_the_budget(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    # The budget counts the environment's preparation: the environment is made first (on a
    # worker where it is new, that alone took 6 of the 8 s), so the budget meets the mutants.
    with _fixed(tmp_path / "warm", envs, sandbox, SLOW, FIX):
        pass
    repo, row = calc_instance(tmp_path, SLOW, FIX)
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    config = StrengthConfig(budget_s=600, validation_s=1.6, floor_s=1.0, ablation=False)
    got = measure(job, Executor(envs, sandbox), tmp_path / "s", config)
    assert got.not_run >= 1, [m.verdict for m in got.mutants]
    assert got.skipped[-1] == "the budget was 5 s: 3× the validation's 2 s of test runs"
    assert got.durations["total"] < 600  # cut by its own validation's measure, not --budget


def test_a_result_stored_before_verdicts_were_typed_reads_as_typed() -> None:
    old = {"path": "a.py", "line": 1, "operator": "x", "change": "x", "diff": ""}
    stored = TestStrength.model_validate(
        {
            "status": "measured",
            "mutants": [
                old | {"killed_by": ADD},
                old | {"killed_by": None},
                old | {"killed_by": "the test session crashed"},
                old | {"killed_by": "the run was stopped (timeout)"},
            ],
        }
    )
    assert [(m.verdict, m.killed_by) for m in stored.mutants] == [
        ("killed", ADD),
        ("survived", None),
        ("not_run", None),
        ("not_run", None),
    ]
    assert stored.mutants[2].reason == "the test session crashed"

"""Test strength where the tests run with the repository's own runner (sympy's `bin/test`
manner: no pytest, no plugin of ours), in the sandbox: survivors' lines probed for the tests
that run them, and those a test runs watched by our driver of that runner (the differential
run, spice_engine.strength.watched), so a wrong fix the tests accept is shown only on evidence
a caller could see."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.langs.python_runners import SYMPY
from spice_engine.runs.session import Job, Status
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import Verdict
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import instance_of, own_runner_calc
from tests.validation_support import sandbox_fixture  # noqa: F401

BASE = (
    "def add(a, b):\n    return a - b\n\n\ndef cap(x, hi):\n    return x\n\n\n"
    "def mul(a, b):\n    return a * b\n"
)
FIX = BASE.replace("a - b", "a + b").replace(
    "    return x\n", "    if x > hi:\n        return hi\n    return x\n"
)
# `add(2, 0)` cannot tell `a + b` from `a - b` (its neighbour `add(2, 1)` can); no test makes
# `cap` reach its bound.
TESTS = (
    "\n\ndef test_add():\n    from calc import add\n    assert add(2, 0) == 2\n"
    "\n\ndef test_cap():\n    from calc import cap\n    assert cap(5, 10) == 5\n"
)


def _instance(repo: Path) -> dict[str, str]:
    setup = "from setuptools import setup\n\nsetup(name='calc', version='0.1', packages=['calc'])\n"
    own_runner_calc(repo, BASE, setup)
    fixed = {"calc/__init__.py": "from calc.testing import test\n" + FIX}
    row = instance_of(repo, "octo/owncalc", fixed, ("calc/tests/test_calc.py", TESTS), "add")
    row["FAIL_TO_PASS"] = json.dumps(["test_add"])
    row["PASS_TO_PASS"] = json.dumps(["test_mul", "test_cap"])
    return row


def test_own_runner_survivors_are_probed_and_watched(tmp_path: Path, sandbox: Bubblewrap) -> None:
    repo = tmp_path / "owncalc"
    row = _instance(repo)
    recipe = Recipe(python="3.11", test_runner=SYMPY, log_parser="parse_log_sympy")
    logs = tmp_path / "logs"
    job = Job(
        instance=row,
        git_dir=repo / ".git",
        version="0.1",
        recipe=recipe,
        timeout_s=120,
        logs_dir=logs,
    )
    executor = Executor(tmp_path / "envs", sandbox)
    got = measure(job, executor, tmp_path / "scratch", StrengthConfig(budget_s=240))
    assert got.status == Status.MEASURED, got.detail
    by_change = {m.change: m for m in got.mutants}
    wrong = by_change["`+` → `-`"]
    assert wrong.verdict == Verdict.SURVIVED and wrong.reached == "executed_unchecked"
    assert wrong.difference == "nearby" and wrong.difference_in == "returned", wrong.reason
    assert wrong.shown and got.headline == wrong
    guard = by_change["if x > hi: return hi"]  # a guard removed: probed at its header, watched
    assert guard.reached == "executed_unchecked" and guard.difference == "nearby"
    bound = by_change["`return hi` → `return None`"]
    assert bound.reached == "not_executed" and bound.untested_line and not bound.shown
    assert bound.difference is None  # no differential run for code no test runs
    assert "differential" in got.durations
    [watched] = [gzip.decompress(p.read_bytes()).decode() for p in logs.glob("watched-*.log.gz")]
    assert "test_add ok" in watched and "test_mul" not in watched  # only tests that reach them
    shown = [m for m in got.survivors if m.shown]
    assert all(m.difference is not None for m in shown)  # nothing shown without evidence

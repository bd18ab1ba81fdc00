"""A row whose lists name tests as another harness does (Multi-SWE-bench's published ids, not
ours) gets test strength's one-line reason to validate it first, not a bare baseline failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spice_engine.runs.session import Status
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.lang_projects import lang_job, project_instance

DATA = Path(__file__).parent / "data" / "lang_go"


def test_lists_of_another_harness_are_named_as_such(tmp_path: Path) -> None:
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    from spice_engine.langs.executor import Executor
    from spice_engine.strength.config import StrengthConfig
    from spice_engine.strength.measure import measure

    row = project_instance(DATA / "calc", tmp_path / "repo")
    row["FAIL_TO_PASS"] = json.dumps(["TestAdd", "TestSub"])  # no package: not our ids
    row["PASS_TO_PASS"] = "[]"
    job = lang_job(row, tmp_path / "repo", "go")
    got = measure(job, Executor(tmp_path / "envs", box), tmp_path / "scratch", StrengthConfig())
    assert got.status == Status.BASELINE_FAILED
    assert "none of the row's 2 FAIL_TO_PASS/PASS_TO_PASS ids is a test this run reports" in (
        got.detail
    )
    assert "'TestAdd'" in got.detail and "example.com/calc/mathx::" in got.detail
    assert "spice validate" in got.detail and "\n" not in got.detail

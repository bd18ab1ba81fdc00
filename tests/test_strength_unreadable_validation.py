"""Test strength stops, saying why, when the row's own validation could not read the runner's
output: its lists judge no mutant (a test missing from a log it could not read is no kill)."""

from __future__ import annotations

from pathlib import Path

from spice_engine.langs.executor import Executor
from spice_engine.strength.batch import strength_rows
from spice_engine.strength.config import StrengthConfig
from spice_engine.validate.sandbox import Unsandboxed
from tests.fakes.sample_project import make_calc_repo


def test_a_validation_that_could_not_read_its_runner_stops_strength(tmp_path: Path) -> None:
    row = make_calc_repo(tmp_path / "calc")
    unread = {
        "status": "tests_did_not_run",
        "detail": "no test named in the log (pytest 3.5 prints no PASSED lines)\nmore",
    }
    rows = [
        row | {"instance_id": "octo__calc-1", "spice": {"validation": unread}},
        row
        | {"instance_id": "octo__calc-2", "spice": {"validation": {"status": "no_fail_to_pass"}}},
    ]
    executor = Executor(tmp_path / "envs", Unsandboxed())
    got = strength_rows(
        rows, {"octo/calc": tmp_path / "calc" / ".git"}, executor, tmp_path / "s", StrengthConfig()
    )
    first, second = (r["spice"]["test_strength"] for r in got)
    assert first["status"] == "error"
    assert first["detail"] == (
        "validation: tests_did_not_run: no test named in the log (pytest 3.5 prints no PASSED lines)"
    )
    assert second["status"] == "no_fail_to_pass" and second["mutants_tried"] == 0
    assert not (tmp_path / "envs").exists()  # nothing was built, nothing ran

"""A row whose lists name tests as another harness does (Multi-SWE-bench's published ids, not
ours) gets test strength's one-line reason to validate it first, not a bare baseline failure."""

from __future__ import annotations

import json
import shutil
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


def test_a_fix_whose_build_stops_says_its_error(tmp_path: Path) -> None:
    # jq without its oniguruma submodule: make stops before any test, and the reason is the
    # log's last line, not a bare "no judged test passes".
    if shutil.which("gcc") is None or shutil.which("make") is None:
        pytest.skip("no gcc or make on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    from spice_engine.langs.executor import Executor
    from spice_engine.strength.config import StrengthConfig
    from spice_engine.strength.measure import measure
    from tests.compiled_code_support import small_project

    makefile = "check: t\n\t./t\n\nt: t.c sign.c\n\t$(CC) -o t t.c sign.c\n"
    test = "int positive(long x);\nint main(void) { return !positive(3); }\n"
    row = small_project(
        tmp_path / "p",
        {"Makefile": makefile, "sign.c": "int positive(long x) { return x > 5; }\n", "t.c": test},
        {"sign.c": "int positive(long x) { return x >= 1 }\n"},  # the fix does not compile
        {"t.c": test + "\n"},
    )
    row["FAIL_TO_PASS"] = json.dumps(["Makefile::check"])
    job = lang_job(row, tmp_path / "p" / "repo", "c")
    got = measure(job, Executor(tmp_path / "envs", box), tmp_path / "scratch", StrengthConfig())
    assert got.status == Status.BASELINE_FAILED
    assert got.detail.startswith("no judged test passes with the fix (in its run); its log says: ")
    assert "error: expected" in got.detail and "\n" not in got.detail

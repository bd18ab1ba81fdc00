"""Go through the language seam: results read from `go test -json`, the toolchain rule, and a
module validated end to end in the real sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.commit_files import CommitFiles
from spice_engine.langs.go import Go, machine_go
from spice_engine.langs.plan_environments import plan_key
from spice_engine.runs.planner import language_at
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.outcomes import TestStatus
from tests.fakes.sample_project import git
from tests.lang_projects import DictFiles, go_sandbox, lang_job, project_instance

DATA = Path(__file__).parent / "data" / "lang_go"


def test_results_come_from_the_test_events_only() -> None:
    found = Go().outcomes((DATA / "go_test.json.txt").read_text(), "")
    calc = "example.com/sample/calc"
    assert found == {
        f"{calc}::TestAdd": TestStatus.PASSED,
        f"{calc}::TestTable/two_and_two": TestStatus.PASSED,
        f"{calc}::TestTable/wrong": TestStatus.FAILED,
        f"{calc}::TestTable": TestStatus.FAILED,
        f"{calc}::TestSkipped": TestStatus.SKIPPED,
        f"{calc}::TestPrints": TestStatus.PASSED,
    }  # the package that did not build has no test; printed look-alikes are only output


def test_garbage_in_the_channel_is_no_result() -> None:
    channel = 'not json\n{"Action": "pass"}\n[1, 2]\n{"Action":"pass","Test":"T","Package":"p"'
    assert Go().outcomes(channel, "") == {}


def test_the_packages_of_the_changed_files_run_each_in_its_own_module() -> None:
    tree = DictFiles(
        {
            "go.mod": "module example.com/a\n\ngo 1.20\n",
            "a/a.go": "",
            "a/a_test.go": "",
            "tools/go.mod": "module example.com/a/tools\n\ngo 1.20\n",
            "tools/gen/gen_test.go": "",
            "main.go": "",
            "README.md": "",
        }
    )
    go = Go()
    plan = go.plan(tree, None)
    changed = ["a/a_test.go", "a/a.go", "tools/gen/gen_test.go", "README.md", "main.go"]
    script = go.test_command(tree, changed, plan).argv[-1]
    assert "(cd . && go test -json -vet=off -count=1 -p 2 -timeout 30m . ./a)" in script
    assert "(cd tools && go test -json -vet=off -count=1 -p 2 -timeout 30m ./gen)" in script
    # the same manifests, the same environment
    assert plan_key("r", plan) == plan_key("r", go.plan(tree, None))
    other = DictFiles(tree.files | {"go.sum": "example.com/x v1.0.0 h1:abc\n"})
    assert plan_key("r", go.plan(other, None)) != plan_key("r", plan)
    assert set(plan.inputs or {}) == {"go.mod", "tools/go.mod"}


def test_a_go_directive_newer_than_this_machines_go_is_a_missing_toolchain() -> None:
    _, (major, minor) = machine_go()
    tree = DictFiles({"go.mod": f"module m\n\ngo {major}.{minor + 1}\n"})
    with pytest.raises(ToolchainMissing, match=rf"asks for go {major}\.{minor + 1}"):
        Go().plan(tree, None)


def test_tests_and_sources_are_told_apart() -> None:
    go = Go()
    assert go.is_test_path("pkg/a_test.go") and go.is_test_path("pkg/testdata/in.go")
    assert go.mutable("pkg/a.go") and not go.mutable("pkg/a_test.go")
    assert not go.mutable("pkg/README.md")


def test_a_go_module_is_detected_at_its_commit(tmp_path: Path) -> None:
    row = project_instance(DATA / "calc", tmp_path / "repo")
    assert language_at(tmp_path / "repo", row["base_commit"]) == "go"
    files = CommitFiles(tmp_path / "repo", row["base_commit"])
    assert "mathx/mathx.go" in files.paths() and files.text("nothing/here.go") is None


def test_a_go_module_validates_end_to_end_in_the_sandbox(tmp_path: Path) -> None:
    box = go_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "calc", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "go", reruns=1)
    done = validate(job, Executor(tmp_path / "envs", box), tmp_path / "scratch")
    record = done.validation
    assert record.status == Status.VALID, record.detail
    pkg = "example.com/calc/mathx"
    # The test patch needs the fix to build: every test of its package did not run before.
    assert done.fail_to_pass == [
        f"{pkg}::TestAdd",
        f"{pkg}::TestAdd/negative",
        f"{pkg}::TestAdd/small",
        f"{pkg}::TestMul",
        f"{pkg}::TestSub",
    ]
    assert done.pass_to_pass == []  # strs is neither changed nor run
    assert record.toolchain == machine_go()[0] and record.language == "go"
    assert record.test_command and "go test -json" in record.test_command[-1]
    git(tmp_path / "repo", "status")  # the repository is untouched by the run
    assert json.dumps(done.model_dump(mode="json"))  # the record is plain data


def test_a_go_fix_is_measured_by_mutants_of_its_changed_lines(tmp_path: Path) -> None:
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    from spice_engine.langs.executor import Executor
    from spice_engine.strength.config import StrengthConfig
    from spice_engine.strength.measure import measure

    row = project_instance(DATA / "calc", tmp_path / "repo")
    pkg = "example.com/calc/mathx"
    row["FAIL_TO_PASS"] = json.dumps([f"{pkg}::TestAdd", f"{pkg}::TestSub"])
    row["PASS_TO_PASS"] = "[]"
    job = lang_job(row, tmp_path / "repo", "go")
    executor = Executor(tmp_path / "envs", box)
    got = measure(job, executor, tmp_path / "scratch", StrengthConfig(max_mutants=4))
    assert got.status == Status.MEASURED, got.detail
    changes = {m.change for m in got.mutants}
    # Only the tokens the fix writes are mutated: the new Sub ends `return a - b }` as the old
    # Add did, which the token diff reads as moved (a limit of that heuristic), so Add's `+`.
    assert "`+ b` → `- b`" in changes
    assert {m.function for m in got.mutants} <= {"Add", "Sub"}
    assert all(m.killed_by in (f"{pkg}::TestAdd", f"{pkg}::TestSub") for m in got.mutants)
    assert got.score == 1.0 and got.tests == 2
    assert got.parts_checked == 0 and got.untested == []  # one hunk: no part to leave out


def test_another_language_under_another_sandbox_says_so_in_one_line(tmp_path: Path) -> None:
    from spice_engine.langs.executor import Executor
    from spice_engine.validate.sandbox import Unsandboxed

    row = project_instance(DATA / "calc", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "go")
    executor = Executor(tmp_path / "envs", Unsandboxed())
    record = validate(job, executor, tmp_path / "scratch").validation
    assert record.status == Status.MISSING_TOOLCHAIN
    assert record.detail == "go runs in the bubblewrap sandbox only, not none"

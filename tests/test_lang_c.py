"""C and C++ through the language seam: results read from ctest's JUnit, googletest's XML and
automake's `.trs` files, the build chosen for the test files, the Debian packages inferred,
and a CMake and a Make project validated end to end in the real sandbox."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spice_engine.langs import language_of
from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.c import C, Cpp
from spice_engine.langs.c_build import Build, build_for
from spice_engine.langs.c_debian import HOST_LIST
from spice_engine.langs.c_libraries import needed
from spice_engine.langs.c_reports import MARK, read_channel, read_ctest, read_gtest, read_trs
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.outcomes import TestStatus
from tests.fakes.sample_project import git
from tests.lang_projects import DictFiles, lang_job, project_instance

DATA = Path(__file__).parent / "data" / "lang_c"
P, F, S, E = TestStatus.PASSED, TestStatus.FAILED, TestStatus.SKIPPED, TestStatus.ERROR


def test_ctest_names_come_from_its_junit_report() -> None:
    assert read_ctest((DATA / "ctest.xml").read_text()) == {
        "passes": P,
        "fails": F,
        "skipped": S,  # its SKIP_RETURN_CODE
        "missing": E,  # no executable: it did not build
        "off": S,
    }


def test_googletest_cases_are_named_by_their_binary() -> None:
    assert read_gtest("test/suite", (DATA / "gtest.xml").read_text()) == {
        "test/suite::Suite.Passes": P,
        "test/suite::Suite.Fails": F,
        "test/suite::Suite.DISABLED_Off": S,
        "test/suite::Other.Skips": S,
        "test/suite::Param.P": P,
    }


def test_automake_results_are_the_trs_files() -> None:
    assert read_trs((DATA / "pass.trs").read_text()) == P
    assert read_trs((DATA / "fail.trs").read_text()) == F
    assert read_trs((DATA / "tap.trs").read_text()) == F  # no global line: the worst
    assert read_trs("garbage") is None


def test_the_channel_holds_each_report_after_its_marker() -> None:
    channel = "\n".join(
        [
            "printed by nobody",
            f"{MARK}trs tests/jqtest",
            (DATA / "pass.trs").read_text(),
            f"{MARK}trs modules/oniguruma/test/test_utf8",
            (DATA / "fail.trs").read_text(),
            f"{MARK}ctest",
            (DATA / "ctest.xml").read_text(),
            f"{MARK}gtest test/test",
            (DATA / "gtest.xml").read_text(),
            f"{MARK}target Makefile::check 2",
            f"{MARK}ctest",
            "<not xml",
        ]
    )
    found = read_channel(channel)
    assert found["tests/jqtest"] == P and found["modules/oniguruma/test/test_utf8"] == F
    assert found["fails"] == F and found["test/test::Suite.Passes"] == P
    assert found["Makefile::check"] == F
    assert len(found) == 13  # a report cut short adds nothing


def test_the_sources_tell_c_from_cpp_and_other_projects_keep_theirs() -> None:
    jq = DictFiles({"configure.ac": "", "Makefile.am": "", "src/main.c": "", "src/jv.h": ""})
    assert language_of(jq).name == "c"
    fmt = DictFiles({"CMakeLists.txt": "", "include/fmt/core.h": "", "test/a-test.cc": ""})
    assert language_of(fmt).name == "cpp"
    numpy_like = DictFiles({"meson.build": "", "pyproject.toml": "", "np/_core.c": "", "a.py": ""})
    assert language_of(numpy_like).name == "python"
    scripts = DictFiles({"Makefile": "", "tool.py": "", "lib.py": "", "fast.c": ""})
    assert language_of(scripts).name == "python"
    assert C().detect(DictFiles({"README.md": "", "a.c": ""})) == 0  # no build to run


def test_tests_and_sources_are_told_apart() -> None:
    lang = Cpp()
    assert lang.is_test_path("test/format-test.cc") and lang.is_test_path("tests/jq.test")
    assert lang.is_test_path("src/parser_test.cc") and lang.is_test_path("src/test_util.c")
    assert not lang.is_test_path("src/format.cc") and not lang.is_test_path("include/fmt/core.h")
    assert lang.mutable("include/fmt/core.h") and lang.mutable("src/builtin.c")
    assert not lang.mutable("test/util.cc") and not lang.mutable("examples/demo.cc")
    assert not lang.mutable("docs/manual.yml")


def test_a_test_folders_own_makefile_runs_its_tests_with_this_machines_compiler() -> None:
    makefile = "CXX = clang-nowhere++\n\nall : test\n\t./test\n\ntest : test.cc\n"
    tree = DictFiles(
        {
            "CMakeLists.txt": "project(httplib)\n",
            "meson.build": "",
            "httplib.h": "",
            "test/Makefile": makefile,
            "test/test.cc": "",
        }
    )
    assert build_for(tree, ["test/test.cc", "httplib.h"]) == Build(
        kind="make", folder="test", overrides=("CXX=c++",)
    )
    assert build_for(tree, ["httplib.h"]) == Build(kind="cmake")  # no test file: the tree's
    top = DictFiles({"Makefile": "check:\n\t./t\n", "calc.c": "", "tests/t.c": ""})
    assert build_for(top, ["tests/t.c"]) == Build(kind="make", goal="check")
    generated = DictFiles({"configure.ac": "", "Makefile.am": "", "tests/Makefile.am": ""})
    assert build_for(generated, ["tests/x.test"]) == Build(kind="autotools")


def test_the_build_runs_in_the_test_command_and_its_reports_go_to_the_channel() -> None:
    tree = DictFiles({"CMakeLists.txt": "project(calc C)\n", "calc.c": ""})
    lang = C()
    phase = lang.test_command(tree, ["tests/add_test.c"], lang.plan(tree, None))
    assert phase.channel and not phase.network
    script = phase.argv[-1]
    assert "cmake --build" in script and "ctest --output-junit" in script
    # the build writes to the log, never to the channel (what it lists of its targets is read)
    built = [line for line in script.splitlines() if "cmake -S" in line or "cmake --build" in line]
    assert built and all(">&2" in line or "--target help" in line for line in built)


def test_packages_are_inferred_from_the_build_files_less_what_the_tree_bundles() -> None:
    configure = "AC_INIT([jq])\nAM_INIT_AUTOMAKE\nLT_INIT\nAC_CHECK_LIB([onig],[onig_version])\n"
    files = {"configure.ac": configure, "Makefile.am": "", "src/jq.c": "#include <oniguruma.h>\n"}
    plain = needed(DictFiles(files), [Build(kind="autotools")])
    bundled = needed(
        DictFiles(
            files
            | {".gitmodules": '[submodule "m"]\n\tpath = modules/oniguruma\n\turl = u\n'}
            | {"modules/oniguruma": ""}
        ),
        [Build(kind="autotools")],
    )
    assert "libonig-dev" not in bundled
    assert ("libonig-dev" in plain) == (not Path("/usr/include/oniguruma.h").exists())
    for tool, package in (("autoreconf", "autoconf"), ("automake", "automake")):
        assert (package in plain) == (shutil.which(tool) is None)


def test_a_required_package_nothing_provides_is_a_missing_dependency() -> None:
    cmake = "project(app)\nfind_package(NoSuchThing42 REQUIRED)\nfind_package(Quiet42)\n"
    tree = DictFiles({"CMakeLists.txt": cmake, "main.cc": ""})
    with pytest.raises(ToolchainMissing, match=r"^missing_dependency: NoSuchThing42$"):
        Cpp().plan(tree, None)
    own = DictFiles(
        {
            "CMakeLists.txt": "project(app)\nfind_package(Mine REQUIRED)\n",
            "cmake/FindMine.cmake": "",
        }
        | {"main.cc": ""}
    )
    assert Cpp().plan(own, None).install == ()


def test_an_install_sees_only_the_machines_package_list() -> None:
    tree = DictFiles({"CMakeLists.txt": "project(x)\nfind_package(LibArchive)\n", "x.c": ""})
    plan = C().plan(tree, None)
    if not plan.install:
        pytest.skip("this machine has libarchive-dev: nothing to fetch")
    assert set(plan.inputs or {}) == {HOST_LIST} and plan.key == ("libarchive-dev",)
    (phase,) = plan.install
    assert phase.network and "libarchive-dev" in phase.argv
    assert plan.caches == ("debian",)


def _sandbox(tmp_path: Path, *tools: str) -> Bubblewrap:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"no {', '.join(missing)} on this machine")
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    return box


def test_a_cmake_project_validates_end_to_end_in_the_sandbox(tmp_path: Path) -> None:
    box = _sandbox(tmp_path, "cmake", "ctest", "cc")
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "cmake_calc", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "c")
    done = validate(job, Executor(tmp_path / "envs", box), tmp_path / "scratch")
    record = done.validation
    assert record.status == Status.VALID, record.detail
    assert done.fail_to_pass == ["mul-test"] and done.pass_to_pass == ["add-test"]
    assert record.toolchain and record.toolchain.startswith("gcc ")
    # What an export names of the environment: the build system, the toolchain, the command.
    assert record.plan and record.plan["settings"] == {"build_system": "cmake"}
    assert record.test_command and "ctest" in record.test_command[-1]
    git(tmp_path / "repo", "status")  # the repository is untouched by the run
    assert json.dumps(done.model_dump(mode="json"))


def test_a_makefile_project_validates_end_to_end_in_the_sandbox(tmp_path: Path) -> None:
    box = _sandbox(tmp_path, "make", "cc")
    from spice_engine.langs.executor import Executor

    row = project_instance(DATA / "make_calc", tmp_path / "repo")
    job = lang_job(row, tmp_path / "repo", "c")
    done = validate(job, Executor(tmp_path / "envs", box), tmp_path / "scratch")
    assert done.validation.status == Status.VALID, done.validation.detail
    assert done.fail_to_pass == ["Makefile::check"]  # the target is the test: its status


def test_a_wrong_fixs_run_builds_only_the_test_patchs_programs(tmp_path: Path) -> None:
    """Given the test patch's sources alone (`judged_targets`), CMake builds just their programs:
    the other test does not run (ctest's "notrun", never judged), where validation's targets
    build and run both. A test source naming no target of the build, or one no test runs (a
    library's), gets the whole build."""
    from spice_engine.langs.capabilities import judged_targets
    from spice_engine.runs.validator import run_targets, test_files
    from tests.compiled_code_support import fixed_session

    _sandbox(tmp_path, "cmake", "ctest", "cc")
    row = project_instance(DATA / "cmake_calc", tmp_path / "repo")
    with fixed_session(tmp_path, row, "c") as check:
        runner = check.runner
        job = runner.session.job
        assert runner.targets == ["tests/mul_test.c"]
        assert runner.targets == judged_targets(
            runner.session.language, test_files(job.test_patch), test_files(job.patch)
        )
        narrowed = runner.outcomes(["mul-test"], whole_files=True).outcomes
        whole = runner.session.run("validation's", run_targets(job), 600).outcomes
        unknown = runner.session.run("unknown", ["tests/no_such_test.c"], 600).outcomes
        library = runner.session.run("library", ["tests/calc.c"], 600).outcomes
    assert narrowed == {"mul-test": P, "add-test": E}, narrowed
    assert whole == {"mul-test": P, "add-test": P}, whole
    assert unknown == whole  # no such target: everything built, as before
    assert library == whole  # a library's target runs no test: everything, as before


def test_only_cmake_narrows_and_only_to_plain_program_names() -> None:
    from spice_engine.langs.c_build import judged_build, script

    cmake = Build(kind="cmake")
    narrowed = judged_build(cmake, ["test/format-test.cc", "test/util.h"])
    assert narrowed.only == ("format-test",)  # a header is no program
    assert "--target $T" in script(narrowed) and "--target" not in script(cmake)
    assert judged_build(cmake, ["test/$(rm -rf ~).cc"]) == cmake
    assert judged_build(Build(kind="autotools"), ["tests/a_test.c"]).only == ()
    assert C().judged_targets(["tests/a_test.c", "tests/data.json"], ["src/a.c"]) == [
        "tests/a_test.c"
    ]
    assert C().judged_targets(["tests/data.json"], ["src/a.c"]) == ["tests/data.json", "src/a.c"]

"""Survivors whose compiled code is the fix's (spice_engine.strength.same_code): each
language's own command, run in the real sandbox with this machine's compilers, says equal for a
mutant its optimiser makes the fix's code and different for one that changes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.compiled_code_support import fixed_session, mutant, small_project, timed
from tests.lang_projects import project_instance

DATA = Path(__file__).parent / "data"


def test_go_a_mutant_the_compiler_folds_is_the_fixs_code(tmp_path: Path) -> None:
    if not Path("/usr/local/go/bin/go").exists():
        pytest.skip("no Go toolchain in /usr/local/go on this machine")
    row = project_instance(DATA / "lang_go" / "calc", tmp_path / "repo")
    with fixed_session(tmp_path, row, "go") as check:
        path = "mathx/mathx.go"
        same, first = timed(check, mutant(check, path, "return a + b }", "return a + b + 0 }"))
        assert same
        other, second = timed(check, mutant(check, path, "return a - b }", "return a + b }"))
        assert not other
        print(f"go: {first} s (the fix's compilation included), {second} s a survivor")


@pytest.mark.parametrize("project", ["cmake_calc", "make_calc"])
def test_c_a_mutant_the_compiler_folds_is_the_fixs_object_code(
    tmp_path: Path, project: str
) -> None:
    if shutil.which("gcc") is None or shutil.which("objcopy") is None:
        pytest.skip("no gcc or objcopy on this machine")
    if project == "cmake_calc" and shutil.which("cmake") is None:
        pytest.skip("no cmake on this machine")
    row = project_instance(DATA / "lang_c" / project, tmp_path / "repo")
    with fixed_session(tmp_path, row, "c", built=True) as check:
        same, first = timed(check, mutant(check, "calc.c", "return a + b;", "return a + b + 0;"))
        assert same
        other, second = timed(check, mutant(check, "calc.c", "return a * b;", "return a / b;"))
        assert not other
        print(f"c ({project}): {first} s (the fix's compilation included), {second} s a survivor")


C_BASE = "int positive(long x) { return x > 5; }\n"
C_FIX = "int positive(long x) { return x >= 1; }\n"
C_TEST = "int positive(long x);\nint main(void) { return !positive(3); }\n"


def test_c_a_bound_the_optimiser_makes_the_fixs_is_the_fixs_object_code(tmp_path: Path) -> None:
    if shutil.which("gcc") is None or shutil.which("objcopy") is None:
        pytest.skip("no gcc or objcopy on this machine")
    makefile = "check: t\n\t./t\n\nt: t.c sign.c\n\t$(CC) -O0 -Wall -o t t.c sign.c\n"
    row = small_project(
        tmp_path,
        {"Makefile": makefile, "sign.c": C_BASE, "tests/t.c": C_TEST},
        {"sign.c": C_FIX},
        {"t.c": C_TEST},
    )
    with fixed_session(tmp_path, row, "c", built=True) as check:
        assert timed(check, mutant(check, "sign.c", "x >= 1", "x > 0"))[0]
        assert not timed(check, mutant(check, "sign.c", "x >= 1", "x >= 2"))[0]


RUST_MANIFEST = '[package]\nname = "spans"\nversion = "0.1.0"\nedition = "2021"\n'
RUST_BASE = """use std::ops::Range;

/// How many bytes of `hay` fall in `range`.
pub fn span(hay: &[u8], range: Range<usize>) -> usize {
    hay[range].len()
}

/// Whether `x` counts.
pub fn positive(x: i64) -> bool {
    x > 5
}
"""
RUST_FIX = RUST_BASE.replace("hay[range]", "let inside = range.clone();\n    hay[inside]").replace(
    "x > 5", "x >= 1"
)


def test_rust_a_clone_of_a_range_not_used_again_is_the_fixs_machine_code(tmp_path: Path) -> None:
    from spice_engine.langs.rust import RUSTUP
    from spice_engine.validate.bubblewrap import Bubblewrap

    if not RUSTUP.exists():
        pytest.skip(f"no rustup at {RUSTUP}")
    if why := Bubblewrap().network_problem():
        pytest.skip(f"the install's sandbox reaches no registry: {why}")
    test = "#[test]\nfn one() { assert!(spans::positive(1)); }\n"
    row = small_project(
        tmp_path,
        {"Cargo.toml": RUST_MANIFEST, "src/lib.rs": RUST_BASE},
        {"src/lib.rs": RUST_FIX},
        {"tests/one.rs": test},
    )
    with fixed_session(tmp_path, row, "rust") as check:
        path = "src/lib.rs"
        same, first = timed(check, mutant(check, path, "range.clone()", "range"))
        assert same
        assert timed(check, mutant(check, path, "x >= 1", "x > 0"))[0]
        other, second = timed(check, mutant(check, path, "x >= 1", "x >= 2"))
        assert not other
        print(f"rust: {first} s (the fix's compilation included), {second} s a survivor")


@pytest.mark.heavy  # the install resolves Maven's plugins: about a minute
def test_java_a_constant_javac_folds_is_the_fixs_bytecode(tmp_path: Path) -> None:
    from spice_engine.langs.java import JDKS, MAVEN
    from spice_engine.validate.bubblewrap import Bubblewrap
    from tests.lang_projects import patched_project

    if not (Path(JDKS[17].env["JAVA_HOME"]) / "bin" / "javac").exists() or not Path(MAVEN).exists():
        pytest.skip("no JDK 17 or no Maven on this machine")
    if why := Bubblewrap().network_problem():
        pytest.skip(f"the install's sandbox reaches no registry: {why}")
    row = patched_project(DATA / "lang_java", tmp_path / "repo", "demo/calc")
    with fixed_session(tmp_path, row, "java") as check:
        path = "src/main/java/demo/Calc.java"
        same, first = timed(check, mutant(check, path, "x < 0 ?", "x < (1 - 1) ?"))
        assert same
        other, second = timed(check, mutant(check, path, "? -x : x", "? x : x"))
        assert not other
        print(f"java: {first} s (the fix's compilation included), {second} s a survivor")


def test_a_measurement_marks_a_survivor_with_the_fixs_code_equivalent(tmp_path: Path) -> None:
    """End to end in Go: `* 1` → `/ 1` survives the tests and compiles to the fix's code;
    the other mutants are killed, and none is shown as a survivor."""
    if not Path("/usr/local/go/bin/go").exists():
        pytest.skip("no Go toolchain in /usr/local/go on this machine")
    from spice_engine.langs.executor import Executor
    from spice_engine.strength.config import StrengthConfig
    from spice_engine.strength.measure import measure
    from spice_engine.strength.result import Verdict
    from spice_engine.validate.bubblewrap import Bubblewrap
    from tests.lang_projects import lang_job

    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    scale = "package calc\n\n// Scale sums a and b.\nfunc Scale(a, b int) int { return %s }\n"
    test = (
        'package calc\n\nimport "testing"\n\n'
        'func TestScale(t *testing.T) {\n\tif Scale(2, 3) != 5 {\n\t\tt.Fatal("no")\n\t}\n}\n'
    )
    row = small_project(
        tmp_path,
        {"go.mod": "module example.com/calc\n\ngo 1.21\n", "calc/calc.go": scale % "a"},
        {"calc/calc.go": scale % "(a + b) * 1"},
        {"calc/calc_test.go": test},
    )
    row["FAIL_TO_PASS"] = '["example.com/calc/calc::TestScale"]'
    row["PASS_TO_PASS"] = "[]"
    job = lang_job(row, tmp_path / "repo", "go")
    got = measure(job, Executor(tmp_path / "envs", box), tmp_path / "scratch", StrengthConfig())
    verdicts = {m.change: (m.verdict, m.reason) for m in got.mutants}
    assert verdicts["`* 1` → `/ 1`"] == (
        Verdict.EQUIVALENT,
        "compiles to the same machine code as the fix",
    )
    assert verdicts["`+ b` → `- b`"][0] == Verdict.KILLED
    assert got.survivors == [] and got.score == 1.0
    assert "same_code" in got.durations

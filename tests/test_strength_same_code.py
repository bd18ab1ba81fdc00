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

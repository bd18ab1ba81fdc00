"""The issue's shell commands as evidence (spice_engine.strength.shell_examples): read from real
issue texts' shapes (prompted sessions, a file shown with `cat`, inline code, a script's
block), and, end to end in the real sandbox, a survivor of a C program's fix that the tests
accept but under which the reporter's own command prints otherwise, shown as such."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.programs import c_programs, rust_programs
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.shell_commands import shell_commands
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.compiled_code_support import c_project_measured, small_project, validated_and_measured
from tests.lang_projects import DictFiles

JQ_ISSUE = """Get/set inconsistency for fractional array indices
```
$ jq -n '[1,2,3] | .[1.5]'
null
$ ./jq -n '[1,2,3] | .[1.5] = 42'
[1,42,3]
```
- jq version: 1.7rc1
"""


def test_prompted_commands_are_read_with_the_program_by_its_name() -> None:
    assert shell_commands(JQ_ISSUE, ["jq"]) == [
        "jq -n '[1,2,3] | .[1.5]'",
        "jq -n '[1,2,3] | .[1.5] = 42'",
    ]


def test_a_file_the_reporter_shows_with_cat_is_written_first() -> None:
    issue = "```\n> cat rgtest.txt\na\nd\ne\n```\n\n```\n> rg -m 1 -A 1 d rgtest.txt\n2:d\n```\n"
    got = shell_commands(issue, ["rg"])
    assert got[0].startswith("cat > rgtest.txt <<'")
    assert "\na\nd\ne\n" in got[0]
    assert got[1] == "rg -m 1 -A 1 d rgtest.txt"


def test_a_scripts_setup_is_kept_and_installs_are_left_out() -> None:
    issue = (
        "```sh\nmkdir tmp\ncd tmp\necho needle > rust/source.rs\n# search\n"
        "cargo install ripgrep\nrg --files-with-matches needle\n```\n"
    )
    assert shell_commands(issue, ["rg"]) == [
        "mkdir tmp",
        "cd tmp",
        "echo needle > rust/source.rs",
        "rg --files-with-matches needle",
    ]


def test_inline_code_counts_when_it_runs_a_program_with_arguments() -> None:
    issue = "`jq -n '[0,1,2] | .[-5]'` produces `1`; plain `jq` has it too."
    assert shell_commands(issue, ["jq"]) == ["jq -n '[0,1,2] | .[-5]'"]


def test_no_command_runs_a_program_no_example() -> None:
    issue = "```\n$ ls -la\n$ echo hi\n```\n`make check` fails. ```python\nprint(1)\n```"
    assert shell_commands(issue, ["jq"]) == []
    assert shell_commands(JQ_ISSUE, []) == []


def test_a_line_the_blocks_break_left_unclosed_is_no_command() -> None:
    issue = "```\n$ jq implode <<< '[1]'\n$ gdb jq <<< 'run implode <<< \"[\n```\n"
    assert shell_commands(issue, ["jq"]) == ["jq implode <<< '[1]'"]


PYLINT_ISSUE = """--notes ignores tags that are punctuation

```python
# YES: yes
# ???: no
```

`pylint test.py --notes="YES,???"` reports the first line only.

### Command used

```shell
pylint test.py --notes="YES,???"
```

### Pylint version

```shell
pylint 2.12.2
astroid 2.9.0
```
"""


def test_a_file_a_command_names_is_written_from_the_block_holding_it() -> None:
    got = shell_commands(PYLINT_ISSUE, ["pylint"])
    assert got[0] == "cat > test.py <<'SPICE_EXAMPLE_EOF'\n# YES: yes\n# ???: no\nSPICE_EXAMPLE_EOF"
    assert got[1] == 'pylint test.py --notes="YES,???"'
    assert "astroid 2.9.0" not in got  # output in a shell's block is no command
    assert len(got) == 2  # nor is `pylint 2.12.2`, what `--version` printed (inline neither)
    assert shell_commands("I run `pylint 2.12.2`; `pylint -j 2 t.py` fails", ["pylint"]) == [
        "pylint -j 2 t.py"
    ]
    # Typed after a prompt, a number is an argument: jq's filter `1.5`.
    assert shell_commands("```\n$ jq 1.5\n1.5\n```", ["jq"]) == ["jq 1.5"]
    forged = PYLINT_ISSUE.replace("# ???: no", "# ???: no\nSPICE_EXAMPLE_EOF\nrm -rf ~")
    assert not shell_commands(forged, ["pylint"])[0].startswith("cat > test.py")
    named = "Given `conf.py`:\n\n```python\nx = 1\n```\n\n```python\ny = 2\n```\n\n$ `tool conf.py`"
    assert shell_commands(named, ["tool"])[0].startswith(
        "cat > conf.py <<'SPICE_EXAMPLE_EOF'\nx = 1\n"
    )


def test_the_programs_are_read_from_the_build_files() -> None:
    c = DictFiles(
        {
            "Makefile.am": "bin_PROGRAMS = jq\nnoinst_PROGRAMS = tests/jqtest\n",
            "tools/CMakeLists.txt": "add_executable(fmtcat main.c)\nadd_executable(unit_test t.c)",
        }
    )
    assert c_programs(c) == ["fmtcat", "jq"]
    rust = DictFiles(
        {
            "Cargo.toml": '[package]\nname = "ripgrep"\n[[bin]]\nname = "rg"\npath = "main.rs"\n',
            "crates/cli/Cargo.toml": '[package]\nname = "grep-cli"\n',
            "crates/cli/src/lib.rs": "",
            "tool/Cargo.toml": '[package]\nname = "tool"\n',
            "tool/src/main.rs": "fn main() {}",
        }
    )
    assert rust_programs(rust) == ["rg", "tool"]


CMAKE = """cmake_minimum_required(VERSION 3.10)
project(greet C)
enable_testing()
add_library(repeat repeat.c)
add_executable(greet main.c)
target_link_libraries(greet repeat)
add_executable(repeat_test tests/repeat_test.c)
target_link_libraries(repeat_test repeat)
add_test(NAME repeat-test COMMAND repeat_test)
"""
MAIN = """#include <stdio.h>
#include <stdlib.h>
int repeat(int n);
int main(int argc, char **argv) {
  printf("%d\\n", repeat(argc > 1 ? atoi(argv[1]) : 1));
  return 0;
}
"""
BUG = "int repeat(int n) {\n  return 2;\n}\n"
FIX = "static int calls;\nint repeat(int n) {\n  calls++;\n  return n > 0 ? 2 * n : 0;\n}\n"
WEAK = "int repeat(int n);\nint main(void) { return repeat(0) != 0; }\n"
ISSUE = "greet ignores its count\n\n```console\n$ ./greet 3\n2\n```\nIt should print 6.\n"


def test_a_survivor_the_reporters_command_tells_apart_is_shown_on_it(tmp_path: Path) -> None:
    got = c_project_measured(
        tmp_path,
        {"CMakeLists.txt": CMAKE, "main.c": MAIN, "repeat.c": BUG},
        {"repeat.c": FIX},
        {"tests/repeat_test.c": WEAK},
        ISSUE,
    )
    told = [m for m in got.survivors if m.difference == "issue"]
    assert told, [(m.change, m.reason) for m in got.survivors] + got.skipped
    # Told on the reporter's own command; `greet` alone, its neighbour, tells others apart.
    told = [m for m in told if m.issue_example is not None and not m.issue_example.near]
    example = told[0].issue_example
    assert example is not None and example.statement == "greet 3"
    assert example.fix == "6" and example.survivor != "6"
    assert all(m.shown for m in told)
    assert got.headline is not None and got.headline.difference == "issue"
    # One the command cannot tell apart (`n > 0` as `n >= 0`: the same for 3) is not. The test
    # gives 0, where it decides otherwise and still answers 0: its decision probe says the test
    # tried it, masked, so it is held (not confirmed either way), not shown.
    same = [m for m in got.survivors if m.change == "`> 0` → `>= 0`"]
    assert same and same[0].difference is None and same[0].issue_example is None
    assert same[0].unconfirmed.startswith("decision probe: `") and not same[0].shown
    assert "made `n > 0` decide otherwise and still passed" in same[0].unconfirmed
    # `calls++` left out: its line runs, nothing reads it: held without a probe.
    counted = [m for m in got.survivors if m.change == "`calls++;` removed"]
    assert counted, [(m.change, m.verdict) for m in got.mutants]
    assert counted[0].unconfirmed.startswith("a statement left out whose line")


PY_CALC = """import sys


def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def main():
    print(add(int(sys.argv[1]), int(sys.argv[2])))
"""
PY_ISSUE = "`calc` prints the wrong sum\n\n```console\n$ calc 2 3\n-1\n```\n"


def test_a_python_trees_console_script_runs_under_each_survivor(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A Python tree's program is its environment's console script: the issue's `calc 2 3`
    runs under each survivor switched on (no build), and tells the weak test's survivor."""
    from spice_engine.langs.python_recipe import Recipe
    from spice_engine.runs.session import Job
    from tests.fakes.sample_project import calc_project, instance_of
    from tests.strength_support import WEAK

    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    repo = tmp_path / "calc"
    calc_project(repo, ("calc",), calc=PY_CALC.replace("a + b", "b"))
    scripts = '[project.scripts]\ncalc = "calc:main"\n'
    pyproject = (
        (repo / "pyproject.toml")
        .read_text()
        .replace("[tool.setuptools]", scripts + "[tool.setuptools]")
    )
    (repo / "pyproject.toml").write_text(pyproject)
    from tests.fakes.sample_project import git

    git(repo, "commit", "-qam", "a console script")
    row = instance_of(
        repo, "octo/calc", {"calc.py": PY_CALC}, ("tests/test_calc.py", WEAK), PY_ISSUE
    )
    row["FAIL_TO_PASS"] = json.dumps(["tests/test_calc.py::test_add"])
    row["PASS_TO_PASS"] = json.dumps(["tests/test_calc.py::test_mul"])
    recipe = Recipe(python="3.11", extra_packages=["pytest"])
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=recipe, timeout_s=120)
    config = StrengthConfig(budget_s=180, ablation=False, confirm_survivors=0)
    got = measure(job, Executor(tmp_path_factory.mktemp("envs"), box), tmp_path / "s", config)
    assert got.status == "measured", got.detail
    minus = next(m for m in got.survivors if m.change == "`+` → `-`")
    seen = minus.issue_example
    assert minus.difference == "issue" and seen is not None, (minus.reason, got.skipped)
    assert (seen.statement, seen.fix, seen.survivor) == ("calc 2 3", "5", "-1")


RS_CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
RS_LIB = "pub fn add(a: i64, b: i64) -> i64 {\n    a * b\n}\n"
RS_MAIN = (
    "fn main() {\n    let a: Vec<i64> = std::env::args().skip(1).map(|x| x.parse().unwrap())"
    '.collect();\n    println!("{}", calc::add(a[0], a[1]));\n}\n'
)
RS_WEAK = "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 0), 2);\n}\n"
RS_ISSUE = "`calc` multiplies\n\n```console\n$ ./target/debug/calc 2 3\n6\n```\n"


def test_a_rust_binary_is_rebuilt_for_each_survivor_and_runs_the_issues_command(
    tmp_path: Path,
) -> None:
    """A Rust tree's binary (`src/main.rs`) built from each survivor's source and run with
    the issue's command, written by its path (`./target/debug/calc`) in the issue."""
    from spice_engine.langs.base import ToolchainMissing
    from spice_engine.langs.rust import machine_rust

    try:
        machine_rust()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    box = Bubblewrap()
    if why := box.problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    row = small_project(
        tmp_path,
        {"Cargo.toml": RS_CARGO, "src/lib.rs": RS_LIB, "src/main.rs": RS_MAIN},
        {"src/lib.rs": RS_LIB.replace("a * b", "a + b")},
        {"tests/add.rs": RS_WEAK},
    )
    row["problem_statement"] = RS_ISSUE
    got = validated_and_measured(tmp_path, row, "rust", Executor(tmp_path / "envs", box))
    # `calc 3` and `calc 2`, the command's neighbours, panic naming their thread (another one
    # each run): they are compared no further, and the reporter's own command still counts.
    assert not any("two runs of the fix" in s for s in got.skipped), got.skipped
    minus = next(m for m in got.survivors if m.change == "`+ b` → `- b`")
    seen = minus.issue_example
    assert seen is not None, (minus.reason, got.skipped)
    assert (seen.statement, seen.fix, seen.survivor) == ("calc 2 3", "5", "-1")

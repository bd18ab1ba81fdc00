"""A repository that runs its tests with a runner of its own (sympy's `bin/test` manner) is run
with it, its ids come out as that runner's harness names them, and the real `swebench` package
grades the exported row with the parser it names: the gold fix resolved, no fix not."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from spice_engine.langs.python_runners import (
    PYTEST,
    SYMPY,
    infer_runner,
    parse_runtests_log,
    runner_named,
)
from tests.fakes.sample_project import own_runner_calc
from tests.swebench_referee import assert_gold_only, harness_log, referee_fixture  # noqa: F401
from tests.validate_cli import spice_validate
from tests.validation_support import git, instance_of, sandbox_fixture  # noqa: F401

DATA = Path(__file__).parent / "data" / "own_runner"
RUNTESTS_LOG = """\
============================= test process starts ==============================
executable:         /usr/bin/python  (3.9.18-final-0) [CPython]
sympy/core/tests/test_a.py[6]
test_ok ok
test_broken F
test_crash E
test_known f
test_lucky X
test_slow Slow w
sympy/core/tests/test_b.py[1]
test_ok_again prints this first ok

________________________________________________________________________________
_______________ sympy/core/tests/test_a.py:test_broken _________________________
Traceback (most recent call last):
AssertionError
"""


def own_runner_project(repo: Path) -> dict[str, str]:
    """calc with its own runner: `bin/test` calls `calc.test`; `add` subtracts."""
    (repo / "calc").mkdir(parents=True)
    (repo / "calc" / "release.py").write_text('__version__ = "1.1.dev"\n')
    own_runner_calc(
        repo,
        "from calc.release import __version__\n\n\n"
        "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
        "from setuptools import setup\n\nsetup(name='calc', version='1.1.dev0', packages=['calc'],"
        " python_requires='>=3.11')\n",
    )
    fixed = (repo / "calc" / "__init__.py").read_text().replace("a - b", "a + b")
    return instance_of(
        repo,
        "octo/symcalc",
        fix={"calc/__init__.py": fixed},
        test=(
            "calc/tests/test_calc.py",
            "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n",
        ),
        problem="add() subtracts",
    )


def test_a_runtests_log_is_read_as_swebench_reads_it() -> None:
    outcomes = parse_runtests_log(RUNTESTS_LOG)
    assert {t: s.value for t, s in outcomes.items()} == {
        "test_ok": "PASSED",
        "test_broken": "FAILED",
        "test_crash": "ERROR",
        "test_known": "XFAIL",
        "test_lucky": "XFAIL",  # passed though expected to fail: SWE-bench reads no pass
        "test_slow": "SKIPPED",
        "test_ok_again": "PASSED",
    }


def test_the_runner_is_inferred_from_the_repository(tmp_path: Path) -> None:
    assert infer_runner(tmp_path) == PYTEST
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "test").write_text("#!/bin/sh\nexec make test\n")
    assert infer_runner(tmp_path) == PYTEST  # not a Python runner of the project's
    shutil.copy(DATA / "bin_test.py", tmp_path / "bin" / "test")
    assert infer_runner(tmp_path) == SYMPY
    sympy = runner_named(SYMPY)
    assert sympy.log_parser == "parse_log_sympy" and not sympy.plugins
    assert sympy.shell(["a b.py"]).endswith("python bin/test -C --verbose 'a b.py'")


def run_log(repo: Path, patches: list[str], files: list[str], log: Path) -> None:
    """What the harness's container prints: the runner's output between the markers."""
    for patch in patches:
        subprocess.run(["git", "apply", "-"], cwd=repo, input=patch, text=True, check=True)
    done = subprocess.run(
        [sys.executable, "bin/test", "-C", "--verbose", *files],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    harness_log(done.stdout, log)
    git(repo, "checkout", "-q", ".")


# The referee's first use makes its venv, and swebench imports slowly: minutes on a busy machine.
@pytest.mark.timeout(1200)
def test_own_runner_validated_and_graded_by_swebench(
    tmp_path: Path, sandbox: object, referee: Path
) -> None:
    repo = tmp_path / "symcalc"
    row = own_runner_project(repo)
    done, (validated,) = spice_validate([row], repo, tmp_path)
    assert done.returncode == 0, done.stderr
    record = validated["spice"]["validation"]
    assert record["status"] == "valid", record
    assert json.loads(validated["FAIL_TO_PASS"]) == ["test_add"]  # the harness's bare names
    assert json.loads(validated["PASS_TO_PASS"]) == ["test_mul"]
    assert validated["version"] == "1.1"  # from calc/release.py
    assert record["recipe"]["test_runner"] == SYMPY
    assert record["reruns"] == "new_processes"  # reran in new whole runs, no plugin
    assert validated["log_parser"] == "parse_log_sympy"
    assert "bin/test -C --verbose calc/tests/test_calc.py" in validated["eval_script"]
    assert "pytest" not in json.dumps(record["recipe"]["extra_packages"])

    files = record["test_files"]
    gold_log, empty_log = tmp_path / "gold.log", tmp_path / "empty.log"
    run_log(repo, [row["test_patch"], row["patch"]], files, gold_log)
    run_log(repo, [row["test_patch"]], files, empty_log)
    assert_gold_only(referee, validated, gold_log, empty_log, tmp_path)


PYTEST_LOG = (
    "\x1b[32mPASSED\x1b[0m tests/test_a.py::test_ok\n"
    "PASSED tests/test_a.py::test_param[a b]\n"
    "PASSED tests/test_a.py::test_path[/tmp/pytest-of-x/data.txt]\n"
    "FAILED tests/test_a.py::test_fix - AssertionError: boom - twice\n"
    "ERROR tests/test_b.py::test_setup\n"
    "SKIPPED [2] tests/test_a.py:10: no network\n"
    "XFAIL tests/test_a.py::test_known - reason\n"
    "tests/test_c.py::test_verbose PASSED\n"
    "\x1b[31mFAILED\x1b[0m tests/test_c.py::test_red\n"
)
READ_ALL = """
import json, sys
from swebench.harness.log_parsers import PARSER_REGISTRY
log = sys.stdin.read()
print(json.dumps({n: PARSER_REGISTRY[n](log, None) for n in sys.argv[1:]}))
"""


# The referee's first use makes its venv, and swebench imports slowly: minutes on a busy machine.
@pytest.mark.timeout(1200)
def test_pytest_logs_are_read_as_each_swebench_parser_reads_them(referee: Path) -> None:
    """The outside referee: swebench's own parsers on the same log, each dialect alike
    (colours, an id with a space, a path parameter, a verbose line)."""
    from spice_engine.langs.python_runners import PYTEST_PARSERS, read_outcomes

    names = [*PYTEST_PARSERS.values(), "parse_log_sympy"]
    log = PYTEST_LOG + RUNTESTS_LOG
    done = subprocess.run(
        [str(referee), "-c", READ_ALL, *names], input=log, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)
    for name in names:
        ours = {t: s.value for t, s in read_outcomes(name, log).items()}
        if name == "parse_log_pytest_v2":  # ids cut at a space, as the published lists are
            theirs[name] = {t.split(" ")[0]: s for t, s in theirs[name].items()}
        if name == "parse_log_sympy":  # theirs reads ok/F/E only; ours keeps the rest too
            ours = {t: s for t, s in ours.items() if s in ("PASSED", "FAILED", "ERROR")}
            theirs[name] = {t: s for t, s in theirs[name].items() if ".py:" not in t}
        assert ours == theirs[name], name

"""The rerun plugin in a pytest session of its own: before the fix it reruns the failures,
after it what passes now and had not before, each after every test, within its budget, and
the log stays as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from spice_engine.validate import reruns
from spice_engine.validate.outcomes import parse_pytest_log
from spice_engine.validate.plugin_run import make_plugin, messages
from spice_engine.validate.reruns import RERUN_PLUGIN

PLUGIN_TESTS = """
import os
import pytest

COUNT = os.path.join(os.path.dirname(__file__), "count")


@pytest.fixture(scope="module")
def resource():
    return {"open": True}


def test_passes(resource):
    assert resource["open"]


def test_fails():
    assert False


def test_flips():
    runs = int(open(COUNT).read()) if os.path.exists(COUNT) else 0
    open(COUNT, "w").write(str(runs + 1))
    assert runs == 0 or False, "fails the first time" if runs == 0 else ""


def test_fails_then_passes():
    runs = int(open(COUNT + "2").read()) if os.path.exists(COUNT + "2") else 0
    open(COUNT + "2", "w").write(str(runs + 1))
    assert runs == 1


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False
"""


def _run_plugin(
    tmp_path: Path, budget: float, passed_before: list[str] | None, tests: str = PLUGIN_TESTS
) -> tuple[str, Any]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "test_things.py").write_text(tests)
    plugin = make_plugin(
        tmp_path, reruns.PLUGIN_SOURCE, RERUN_PLUGIN, reruns.settings(budget, passed_before)
    )
    env = {k: v for k, v in os.environ.items() if k not in {"PYTEST_ADDOPTS", "PYTHONPATH"}}
    env |= {"SPICE_PLUGIN_DIR": str(plugin.folder), "PYTHONPATH": str(plugin.folder)}
    env["SPICE_SUPPORT_MODULE"] = plugin.support
    # The channel as the sandbox gives it: a descriptor of its own, apart from the output.
    read, write = os.pipe()
    env["SPICE_CHANNEL_FD"] = str(write)
    with subprocess.Popen(
        [sys.executable, "-m", "pytest", "-rA", *("-p", plugin.support, "-p", plugin.name)],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        pass_fds=(write,),
    ) as proc:
        os.close(write)
        with os.fdopen(read) as channel:
            sent = channel.read()
        log = proc.stdout.read() if proc.stdout else ""
    return log, reruns.read_again(messages(sent))


def test_the_plugin_reruns_failures_before_the_fix_and_keeps_the_log_as_it_was(
    tmp_path: Path,
) -> None:
    log, again = _run_plugin(tmp_path, 60.0, None)
    first = parse_pytest_log(log)
    assert first == {
        "test_things.py::test_passes": "PASSED",
        "test_things.py::test_fails": "FAILED",
        "test_things.py::test_flips": "PASSED",
        "test_things.py::test_fails_then_passes": "FAILED",
        "test_things.py::test_xfail": "XFAIL",
    }
    assert log.count("test_things.py::test_fails ") == 1  # the rerun never reaches the log
    assert again is not None
    # Failing tests only, each rerun once with its fixtures set up again.
    assert again.outcomes == {
        "test_things.py::test_fails": "FAILED",
        "test_things.py::test_fails_then_passes": "PASSED",
    }
    assert again.seconds >= 0.0


def test_after_the_fix_the_plugin_reruns_what_passes_now_and_had_not_before(
    tmp_path: Path,
) -> None:
    _, again = _run_plugin(tmp_path, 60.0, ["test_things.py::test_passes"])
    assert again is not None
    # test_flips passed the first time and not before: rerun, and it fails now.
    assert again.outcomes == {"test_things.py::test_flips": "FAILED"}


ORDERED = """
RUNS = []


def test_first():
    RUNS.append(1)
    assert False


def test_later_sees_one_run():
    assert RUNS == [1]
"""


def test_reruns_come_after_every_test_so_no_later_test_sees_them(tmp_path: Path) -> None:
    """A rerun right after its test would change what later tests see (pytest-7122: the
    temporary folders' numbering shifted); SWE-bench runs each test once."""
    log, again = _run_plugin(tmp_path, 60.0, None, ORDERED)
    assert parse_pytest_log(log)["test_things.py::test_later_sees_one_run"] == "PASSED"
    assert again is not None and again.outcomes == {"test_things.py::test_first": "FAILED"}


def test_with_no_budget_the_plugin_reruns_nothing(tmp_path: Path) -> None:
    _, again = _run_plugin(tmp_path, 0.0, None)
    assert again is not None and again.outcomes == {}

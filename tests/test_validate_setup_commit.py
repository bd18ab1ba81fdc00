"""An environment is built at its own commit (the newest base commit of its version, as
SWE-bench does), whichever of its instances runs first: a later instance whose commit declares
a new dependency finds it installed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spice_engine.langs.executor import Executor
from spice_engine.runs.validate_rows import validate_rows
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import commit_later
from tests.validation_support import (  # noqa: F401
    CALC_FIX,
    calc_repo_fixture,
    instance_of,
    sandbox_fixture,
)


def test_the_environment_is_built_at_its_own_commit_not_the_first_jobs(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, first = calc_repo
    pyproject = repo / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            'requires-python = ">=3.11"\n', 'requires-python = ">=3.11"\ndependencies = ["six"]\n'
        )
    )
    commit_later(repo, "use six", "-a")
    later = instance_of(
        repo,
        "octo/calc",
        fix=CALC_FIX,
        test=(
            "tests/test_calc.py",
            "\n\ndef test_add_six():\n    import six\n    from calc import add\n    assert add(2, 3) == 5\n",
        ),
        problem="add() subtracts",
    ) | {"instance_id": "octo__calc-2"}
    # The first job is the older commit's: built from its tree, `six` would be missing.
    out = validate_rows(
        [first, later],
        {"octo/calc": repo / ".git"},
        Executor(tmp_path / "envs", sandbox),
        tmp_path / "scratch",
    )
    assert [r["environment_setup_commit"] for r in out] == [later["base_commit"]] * 2
    assert [r["spice"]["validation"]["status"] for r in out] == ["valid", "valid"], out
    assert json.loads(out[1]["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add_six"]
    assert out[0]["spice"]["validation"]["environment_built"]
    assert not out[1]["spice"]["validation"]["environment_built"]


def test_tests_that_cannot_import_are_an_environment_failure(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    test = ("tests/conftest.py", "import a_dependency_nobody_installed\n")
    out = _validate_with(calc_repo[0], test, tmp_path, sandbox)
    validation = out["spice"]["validation"]
    assert validation["status"] == "environment_failed", validation
    assert validation["detail"].startswith(
        "the tests cannot import: ModuleNotFoundError: No module named 'a_dependency_nobody_installed'"
    )


def test_the_project_imports_in_a_tests_own_subprocess(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    test = (
        "tests/test_calc.py",
        "\n\ndef test_add_elsewhere(tmp_path):\n    import subprocess, sys\n"
        "    code = 'from calc import add; assert add(2, 3) == 5'\n"
        "    subprocess.run([sys.executable, '-c', code], cwd=tmp_path, check=True)\n",
    )
    out = _validate_with(calc_repo[0], test, tmp_path, sandbox)
    assert json.loads(out["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add_elsewhere"], out


def _validate_with(
    repo: Path, test: tuple[str, str], tmp_path: Path, sandbox: Bubblewrap
) -> dict[str, Any]:
    """The calc fix with `test` as the test patch, validated."""
    row = instance_of(repo, "octo/calc", fix=CALC_FIX, test=test, problem="add() subtracts")
    [out] = validate_rows(
        [row],
        {"octo/calc": repo / ".git"},
        Executor(tmp_path / "envs", sandbox),
        tmp_path / "scratch",
    )
    return out

"""pytest no older than 5.4 however it comes into a Python environment: installed as our runner,
or brought by the project's own dependencies (a `test` extra naming `pytest`), where a 2019
commit's date would resolve it to 3.x, whose `-rA` names no passed test."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spice_engine.langs.python_envbuild import (
    RUNNER_SINCE,
    resolution_cutoff,
    runner_floor,
    uv_binary,
)
from spice_engine.langs.python_recipe import Recipe
from tests.lang_projects import registry_problem

OLD = "2019-06-01T00:00:00Z"


def test_the_floor_is_asked_only_where_the_project_brings_pytest_itself() -> None:
    declared = Recipe(python="3.8", resolve_before=OLD)
    assert runner_floor(declared) == ["pytest>=5.4"]
    # Our runner, installed first as of 5.4's date, is kept by the resolution as it is.
    assert runner_floor(declared.model_copy(update={"runner": "pytest"})) == []
    # A project with a runner of its own (sympy's bin/test) is given no pytest.
    assert runner_floor(declared.model_copy(update={"test_runner": "sympy"})) == []


def test_pytest_alone_is_resolved_from_5_4s_date_the_rest_from_the_commits() -> None:
    pytest_since = ["--exclude-newer-package", f"pytest={RUNNER_SINCE}"]
    assert resolution_cutoff(OLD, [], floor=True) == ["--exclude-newer", OLD, *pytest_since]
    assert resolution_cutoff(OLD, [], floor=False) == ["--exclude-newer", OLD]
    newer = "2022-01-01T00:00:00Z"
    assert resolution_cutoff(newer, [], floor=True) == ["--exclude-newer", newer]
    # A package whose old releases are gone comes from any date, pytest included.
    gone = resolution_cutoff(OLD, ["pytest"], floor=True)
    assert gone == [
        "--exclude-newer",
        OLD,
        "--exclude-newer-package",
        "pytest=2100-01-01T00:00:00Z",
    ]
    assert resolution_cutoff(None, [], floor=True) == []


def test_uv_resolves_a_2019_project_naming_pytest_to_5_4_or_newer(tmp_path: Path) -> None:
    if why := registry_problem("pypi.org"):
        pytest.skip(f"PyPI unreachable: {why}")
    wanted = tmp_path / "requirements.in"
    recipe = Recipe(python="3", resolve_before=OLD)
    wanted.write_text("\n".join(["pytest", *runner_floor(recipe)]) + "\n")
    args = resolution_cutoff(OLD, [], floor=True)

    def pinned(*more: str) -> str:
        done = subprocess.run(
            [uv_binary(), "pip", "compile", "--no-header", "--no-annotate", *more, str(wanted)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return next(x for x in done.stdout.splitlines() if x.startswith("pytest=="))

    version = tuple(int(x) for x in pinned(*args).split("==")[1].split(".")[:2])
    assert version >= (5, 4)
    # Without the floor the date alone gives an older one: the floor is what lifts it.
    wanted.write_text("pytest\n")
    assert tuple(int(x) for x in pinned("--exclude-newer", OLD).split("==")[1].split(".")[:2]) < (
        5,
        4,
    )

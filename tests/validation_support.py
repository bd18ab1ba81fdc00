"""Fixtures around the tiny calc project (tests/fakes/sample_project.py) and the sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.validator import Job, Validated, validate
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import CALC_FIX as CALC_FIX
from tests.fakes.sample_project import git as git
from tests.fakes.sample_project import hunks as hunks
from tests.fakes.sample_project import instance_of as instance_of
from tests.fakes.sample_project import make_calc_repo
from tests.fakes.sample_project import merged_pull as merged_pull


@pytest.fixture(name="calc_repo")
def calc_repo_fixture(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A tiny project: `add` subtracts; the fix and a test that shows it."""
    repo = tmp_path / "calc"
    row = make_calc_repo(repo)
    yield repo, row


@pytest.fixture(name="sandbox", scope="session")
def sandbox_fixture() -> Bubblewrap:
    """The sandbox validation runs repository code in (`./dev` installs bubblewrap)."""
    box = Bubblewrap()
    if why := box.problem() or box.network_problem():
        pytest.skip(f"no sandbox here: {why}")
    return box


def calc_test_patch(repo: Path, base: str, text: str) -> str:
    """A test patch for the calc project: `text` appended to its test file at `base`."""
    git(repo, "checkout", "-q", base)
    with (repo / "tests" / "test_calc.py").open("a") as tests:
        tests.write(text)
    patch = git(repo, "diff")
    git(repo, "checkout", "-q", "tests/test_calc.py")
    return patch


def validate_calc(
    repo: Path, row: dict[str, str], test_patch: str, executor: Executor, scratch: Path, **job: Any
) -> Validated:
    """The calc instance with `test_patch`, validated by `executor` (Python 3.11, pytest)."""
    recipe = Recipe(python="3.11", extra_packages=["pytest"])
    return validate(
        Job(
            instance=row | {"test_patch": test_patch},
            git_dir=repo / ".git",
            version="0.1",
            recipe=recipe,
            **job,
        ),
        executor,
        scratch,
    )

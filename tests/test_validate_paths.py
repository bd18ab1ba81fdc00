"""Test ids name no folder of this machine: a test parametrised with a dependency's `__file__`
or the interpreter's path gets the same id whatever the data folder and the job's scratch."""

from __future__ import annotations

from pathlib import Path

from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.local import LocalExecutor
from spice_engine.validate.recipe import Recipe
from spice_engine.validate.validator import Job, validate
from tests.validation_support import calc_repo_fixture, git, sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])
PATH_TESTS = """

import sys

import pytest


@pytest.mark.parametrize("where", [pytest.__file__, sys.executable])
def test_add_where(where):
    from calc import add
    assert add(2, 3) == 5
"""


def test_ids_are_the_same_from_two_data_folders(
    calc_repo: tuple[Path, dict[str, str]], tmp_path: Path, sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    git(repo, "checkout", "-q", row["base_commit"])
    with (repo / "tests" / "test_calc.py").open("a") as tests:
        tests.write(PATH_TESTS)
    patch = git(repo, "diff")
    git(repo, "checkout", "-q", "tests/test_calc.py")
    lists = []
    for run in ("first", "second"):
        done = validate(
            Job(
                instance=row | {"test_patch": patch},
                git_dir=repo / ".git",
                version="0.1",
                recipe=RECIPE,
                reruns=0,
            ),
            LocalExecutor(tmp_path / run / "envs", sandbox),
            tmp_path / run / "scratch",
        )
        assert done.validation.status == "valid", done.validation.detail
        lists.append(done.fail_to_pass)
    assert lists[0] == lists[1]
    assert len(lists[0]) == 2
    assert all(str(tmp_path) not in test_id for test_id in lists[0])
    assert any("[/spice/env/lib/python3.11/site-packages/pytest/" in t for t in lists[0])
    assert any("[/spice/job/venv/bin/python" in t for t in lists[0])

"""Test ids name no folder of this machine: a test parametrised with a dependency's `__file__`
or the interpreter's path gets the same id whatever the data folder and the job's scratch."""

from __future__ import annotations

from pathlib import Path

from spice_engine.langs.executor import Executor
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.validation_support import (  # noqa: F401
    calc_repo_fixture,
    calc_test_patch,
    sandbox_fixture,
    validate_calc,
)

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
    patch = calc_test_patch(repo, row["base_commit"], PATH_TESTS)
    lists = []
    for run in ("first", "second"):
        executor = Executor(tmp_path / run / "envs", sandbox)
        done = validate_calc(repo, row, patch, executor, tmp_path / run / "scratch", reruns=0)
        assert done.validation.status == "valid", done.validation.detail
        lists.append(done.fail_to_pass)
    assert lists[0] == lists[1]
    assert len(lists[0]) == 2
    assert all(str(tmp_path) not in test_id for test_id in lists[0])
    assert any("[/spice/env/lib/python3.11/site-packages/pytest/" in t for t in lists[0])
    assert any("[/spice/job/venv/bin/python" in t for t in lists[0])

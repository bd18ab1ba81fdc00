"""Fixtures around the tiny calc project (tests/fakes/sample_project.py) and the sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import CALC_FIX as CALC_FIX
from tests.fakes.sample_project import git as git
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

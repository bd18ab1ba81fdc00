"""A test that catches the survivor (issue 37): the scripted fake model writes test modules;
each is run in the sandbox on the gold fix and on the wrong fix, and only one that passes on
the first and fails on the second is shown (comment and export). One failing on both, or
passing on both, is not: the survivor is then "possibly equivalent" and not the headline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.github.strength_render import catching_block, strength_line, survivor_block
from spice_engine.langs.executor import Executor
from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.session import Job
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.sample_project import git
from tests.strength_support import FIX, WEAK, calc_instance, test_writer
from tests.validation_support import sandbox_fixture  # noqa: F401

RECIPE = Recipe(python="3.11", extra_packages=["pytest"])
CATCHES = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"
FAILS_BOTH = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 6\n"
PASSES_BOTH = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 0) == 2\n"


@pytest.fixture(name="envs", scope="module")
def envs_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("envs")


def _measure(
    tmp_path: Path,
    envs: Path,
    sandbox: Bubblewrap,
    *modules: str,
    own: dict[str, str] | None = None,
) -> TestStrength:
    repo, row = calc_instance(tmp_path, WEAK, FIX)  # add(2, 0) == 2: `a - b` survives
    if own:  # files of the repository's own, committed under the instance's base
        for path, text in own.items():
            (repo / path).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "own files")
        row["base_commit"] = git(repo, "rev-parse", "HEAD").strip()
    job = Job(instance=row, git_dir=repo / ".git", version="0.1", recipe=RECIPE, timeout_s=120)
    with test_writer(*modules) as (writer, server):
        got = measure(job, Executor(envs, sandbox), tmp_path / "s", StrengthConfig(), writer=writer)
        assert any("catching_test" in str(r) or "wrong fix" in str(r) for r in server.requests)
    assert got.status == "measured", got.detail
    return got


def test_a_written_test_that_passes_on_the_fix_and_fails_on_the_survivor_is_shown(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    # Three votes: the first two do not hold; the third does, and is the one kept.
    got = _measure(tmp_path, envs, sandbox, FAILS_BOTH, PASSES_BOTH, CATCHES)
    (survivor,) = got.survivors
    assert survivor.change == "`+` → `-`" and not survivor.possibly_equivalent
    caught = survivor.catching_test
    assert caught is not None and caught.code == CATCHES
    assert caught.path == "tests/test_spice_catches_survivor.py"
    assert "test_adds" in caught.failure
    assert got.headline == survivor and got.written_by == "openai/fake, catching_test v2"
    # Shown in the comment and in the export.
    assert "```python\n" + CATCHES in catching_block(got, ())
    assert "+    return a - b" in survivor_block(got, ())
    exported = json.loads(got.model_dump_json())
    assert exported["mutants"][0]["catching_test"]["code"] == CATCHES


@pytest.mark.parametrize("written", [FAILS_BOTH, PASSES_BOTH], ids=["fails_both", "passes_both"])
def test_a_written_test_that_does_not_tell_them_apart_is_not_shown(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap, written: str
) -> None:
    got = _measure(tmp_path, envs, sandbox, written)
    (survivor,) = got.survivors
    assert survivor.catching_test is None and survivor.possibly_equivalent
    assert got.headline is None  # not used as the headline
    assert catching_block(got, ()) == "" and survivor_block(got, ()) == ""
    assert (
        "1 of 2 mutants of the fix survive, none a telling example: 1 not confirmed either way"
        in (strength_line(got))
    )


def test_a_place_the_repository_already_uses_takes_no_written_test(
    tmp_path: Path, envs: Path, sandbox: Bubblewrap
) -> None:
    # The repository's own file where the written test would go: it is neither overwritten nor
    # run as ours, and nothing ran, so the survivor is not called possibly equivalent.
    own = {"tests/test_spice_catches_survivor.py": "def test_kept():\n    pass\n"}
    got = _measure(tmp_path, envs, sandbox, CATCHES, own=own)
    (survivor,) = got.survivors
    assert survivor.catching_test is None and not survivor.possibly_equivalent
    assert survivor.shown and got.headline == survivor  # as the differential run showed it

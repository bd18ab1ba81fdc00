"""`spice test-strength` on a real SWE-bench instance that an outside study found under-tested:
sphinx-doc__sphinx-7440, one of the instances whose tests UTBoost (ACL 2025) had to augment
(benchmarks/under_tested.json). Its fix makes glossary terms case-sensitive in two places; the
second (the `:term:` role no longer lowercases its target) is needed by no test.

The instance comes from ../shared/data/swebench/instances.jsonl without test lists, as a harvested
one would: `spice validate` computes them, then `spice test-strength` measures, and every
reported verdict is re-run on its own in a fresh worktree: the survivors pass the tests, the
killed mutants fail one. Skipped, saying why, without ../shared or Python 3.7.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from spice_engine.langs.executor import Executor
from spice_engine.langs.python_interpreters import find_pythons
from spice_engine.langs.python_versions import plan_groups
from spice_engine.strength.recheck import verdicts_hold
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.gitwork import open_repository
from tests.validation_support import sandbox_fixture  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
BUNDLE = SHARED / "validation" / "sphinx.bundle"
INSTANCE = "sphinx-doc__sphinx-7440"
REPO = "sphinx-doc/sphinx"


def _row() -> dict[str, Any]:
    listing = SHARED / "swebench" / "instances.jsonl"
    if not (listing.is_file() and BUNDLE.is_file()):
        pytest.skip(f"no SWE-bench data at {SHARED} (../shared is absent)")
    if "3.7" not in find_pythons():
        pytest.skip("needs Python 3.7 (e.g. from pyenv)")
    for line in listing.read_text().splitlines():
        row = json.loads(line)
        if row["instance_id"] == INSTANCE:
            return row
    pytest.skip(f"{INSTANCE} is not in {listing}")


def _spice(data: Path, *args: str) -> None:
    done = CliRunner().invoke(cli, list(args), env={"SPICE_DATA_DIR": str(data)})
    assert done.exit_code == 0, done.output


@pytest.mark.heavy  # a whole strength run on development data: about a minute and a half
def test_an_under_tested_instance_is_flagged_and_its_verdicts_hold_on_their_own(
    tmp_path: Path, sandbox: Bubblewrap
) -> None:
    given, validated, measured = (tmp_path / n for n in ("in.jsonl", "v.jsonl", "s.jsonl"))
    given.write_text(json.dumps(_row()) + "\n")
    data, repo = tmp_path / "data", f"{REPO}={BUNDLE}"
    _spice(data, "validate", str(given), "--repo", repo, "--out", str(validated))
    [row] = [json.loads(line) for line in validated.read_text().splitlines()]
    assert row["spice"]["validation"]["status"] == "valid", row["spice"]["validation"]["detail"]
    assert json.loads(row["FAIL_TO_PASS"]) == ["tests/test_domain_std.py::test_glossary"]
    # What is checked is what the run finds, not the 3× budget: beside the heavy step's Maven and
    # cargo runs the hunk check came last and was cut (its part not flagged); 10× leaves it room.
    budget = ("--times-validation", "10")
    _spice(data, "test-strength", str(validated), "--repo", repo, "--out", str(measured), *budget)
    [row] = [json.loads(line) for line in measured.read_text().splitlines()]
    strength = row["spice"]["test_strength"]
    assert strength["status"] == "measured", strength["detail"]

    # The part of the fix no test needs: the `:term:` role's `lowercase=True` removed.
    [untested] = strength["untested"]
    assert untested["path"] == "sphinx/domains/std.py"
    assert "class StandardDomain" in untested["header"]

    survivors = [m for m in strength["mutants"] if m["verdict"] == "survived"]
    killed = [m for m in strength["mutants"] if m["verdict"] == "killed"][:2]
    assert killed, "no mutant was killed: the tests judged nothing"
    git_dir = open_repository(BUNDLE, data / "repos")
    group = plan_groups([row], {REPO: git_dir}, sorted(find_pythons()))[INSTANCE]
    executor = Executor(data / "envs", sandbox)
    fixed, holds = verdicts_hold(executor, git_dir, row, group, survivors + killed, data / "tmp")
    assert fixed >= 1, "the fix alone passed none of the judged tests"
    assert holds == [True] * len(survivors + killed)

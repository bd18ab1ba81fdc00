"""The real `swebench` package is the referee of what `spice validate` writes: it loads our
row, builds its test spec, and grades logs of real test runs — the gold patch's run as
resolved, a run without the fix as not resolved (tests/swebench_referee.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.swebench_referee import assert_gold_only, harness_log, referee_fixture  # noqa: F401
from tests.validation_support import calc_repo_fixture, git  # noqa: F401

SPICE = str(Path(sys.executable).parent / "spice")


def run_log(repo: Path, patches: list[str], files: str, log: Path) -> None:
    """What the harness's container prints: the test command's `-rA` output between markers."""
    for patch in patches:
        subprocess.run(["git", "apply", "-"], cwd=repo, input=patch, text=True, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", *files.split()],
        cwd=repo,
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONPATH": str(repo)},
    )
    harness_log(done.stdout, log)
    git(repo, "checkout", "-q", ".")


# The referee's first use makes its venv, and swebench imports slowly: minutes on a busy machine.
@pytest.mark.timeout(1200)
def test_swebench_grades_our_validated_row(
    referee: Path, calc_repo: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, row = calc_repo
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    out = tmp_path / "validated.jsonl"
    env = os.environ | {"SPICE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [SPICE, "validate", str(rows), "--repo", f"octo/calc={repo}", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    validated = json.loads(out.read_text())
    assert validated["spice"]["validation"]["status"] == "valid", validated["spice"]
    assert json.loads(validated["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add"]
    assert json.loads(validated["PASS_TO_PASS"]) == ["tests/test_calc.py::test_mul"]

    files = " ".join(validated["spice"]["validation"]["test_files"])
    gold_log, empty_log = tmp_path / "gold.log", tmp_path / "empty.log"
    run_log(repo, [row["test_patch"], row["patch"]], files, gold_log)
    run_log(repo, [row["test_patch"]], files, empty_log)

    assert_gold_only(referee, validated, gold_log, empty_log, tmp_path)

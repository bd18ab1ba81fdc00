"""The real `swebench` package is the referee of what `spice validate` writes: it loads our
row, builds its test spec, and grades logs of real test runs — the gold patch's run as
resolved, a run without the fix as not resolved.

The package lives in a venv of its own (its pins are not ours), made once per version under
the project's `.venv`, and skipped with the reason when the package index cannot be reached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spice_engine.validate.harness_fields import END, START
from tests.validation_support import calc_repo_fixture, git  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SWEBENCH = "swebench==5.0.2"
VENV = ROOT / ".venv" / f"referee-{SWEBENCH.replace('==', '-')}"
SPICE = str(Path(sys.executable).parent / "spice")
GRADE = """
import json, sys
from swebench.harness.grading import get_eval_report
from swebench.harness.utils import make_test_spec

row = json.loads(open(sys.argv[1]).readline())
spec = make_test_spec(row)
out = {}
for name, log in (("gold", sys.argv[2]), ("empty", sys.argv[3])):
    prediction = {"instance_id": row["instance_id"], "model_name_or_path": "t", "model_patch": "x"}
    out[name] = get_eval_report(spec, prediction, log, True)[row["instance_id"]]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def referee() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, timeout=120)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", SWEBENCH],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode != 0:
            subprocess.run(["rm", "-rf", str(VENV)], check=False)
            pytest.skip(f"cannot install {SWEBENCH}: {done.stderr.strip()[-300:]}")
    return python


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
    log.write_text(f"+ : '{START}'\n{done.stdout}\n+ : '{END}'\n")
    git(repo, "checkout", "-q", ".")


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

    graded = subprocess.run(
        [str(referee), "-c", GRADE, str(out), str(gold_log), str(empty_log)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert graded.returncode == 0, graded.stderr[-2000:]
    report = json.loads(graded.stdout.strip().splitlines()[-1])
    assert report["gold"]["resolved"] is True, report["gold"]
    assert report["empty"]["resolved"] is False, report["empty"]
    assert report["empty"]["patch_successfully_applied"] is True  # graded, not unparseable

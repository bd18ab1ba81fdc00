"""The real `swebench` package as referee: it loads our rows, builds their test specs and
grades run logs. It lives in a venv of its own (its pins are not ours), made once per version
under the project's `.venv`; tests skip with the reason when the package index is unreachable."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from spice_engine.runs.harness_fields import END, START

ROOT = Path(__file__).resolve().parents[1]
SWEBENCH = "swebench==5.0.2"
GRADE = """
import json, sys
from swebench.harness.grading import get_eval_report
from swebench.harness.utils import make_test_spec

out = {}
for line in open(sys.argv[1]):
    case = json.loads(line)
    row = case["row"]
    spec = make_test_spec(row)
    prediction = {"instance_id": row["instance_id"], "model_name_or_path": "t", "model_patch": "x"}
    out[row["instance_id"]] = {
        name: get_eval_report(spec, prediction, log, True)[row["instance_id"]]
        for name, log in case["logs"].items()
    }
print(json.dumps(out))
"""


def referee_venv(spec: str) -> Path:
    """A venv of its own holding `spec` (e.g. `swebench==5.0.2`), made once under the
    project's `.venv`; skips the test with the reason when it cannot be installed."""
    venv = ROOT / ".venv" / f"referee-{spec.replace('==', '-')}"
    python = venv / "bin" / "python"
    venv.parent.mkdir(parents=True, exist_ok=True)
    # One maker at a time (test processes side by side); a venv left half made is made again.
    with (venv.parent / f"{venv.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
            done = subprocess.run(
                [str(python), "-m", "pip", "install", "--quiet", spec],
                capture_output=True,
                text=True,
                timeout=900,
            )
            if done.returncode != 0:
                shutil.rmtree(venv, ignore_errors=True)
                pytest.skip(f"cannot install {spec}: {done.stderr.strip()[-300:]}")
            (venv / ".complete").touch()
    return python


@pytest.fixture(scope="session", name="referee")
def referee_fixture() -> Path:
    return referee_venv(SWEBENCH)


def harness_log(test_output: str, path: Path) -> Path:
    """What the harness's container prints: the test command's output between its markers."""
    path.write_text(f"+ : '{START}'\n{test_output}\n+ : '{END}'\n")
    return path


def grade(
    referee: Path, cases: list[tuple[dict[str, Any], dict[str, Path]]], scratch: Path
) -> dict[str, dict[str, dict[str, Any]]]:
    """SWE-bench's report per instance and per named log (e.g. gold, empty)."""
    given = scratch / "grade.jsonl"
    given.write_text(
        "".join(
            json.dumps({"row": row, "logs": {k: str(v) for k, v in logs.items()}}) + "\n"
            for row, logs in cases
        )
    )
    done = subprocess.run(
        [str(referee), "-c", GRADE, str(given)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    graded: dict[str, dict[str, dict[str, Any]]] = json.loads(done.stdout.strip().splitlines()[-1])
    return graded


def assert_gold_only(
    referee: Path, row: dict[str, Any], gold: Path, empty: Path, scratch: Path
) -> None:
    """swebench resolves `row` on the gold patch's log and not on the log without it (a log it
    graded, not one it could not parse)."""
    report = grade(referee, [(row, {"gold": gold, "empty": empty})], scratch)[row["instance_id"]]
    assert report["gold"]["resolved"] is True, report["gold"]
    assert report["empty"]["resolved"] is False, report["empty"]
    assert report["empty"]["patch_successfully_applied"] is True

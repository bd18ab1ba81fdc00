"""`spice validate` as a batch off a terminal (CI, nohup): a line per instance on stderr, each
row appended to --out as it finishes, the same command resuming an interrupted batch, and an
exit status that tells "none validated" apart."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

from app.cli.validate import outcome_line
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.offline import offline_line
from tests.sandbox_attack import SPICE
from tests.validation_support import calc_repo_fixture, sandbox_fixture  # noqa: F401


def _run(
    tmp_path: Path, rows: list[dict[str, str]], repo: Path
) -> subprocess.CompletedProcess[str]:
    given = tmp_path / "rows.jsonl"
    given.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [SPICE, "validate", str(given), "--out", str(tmp_path / "out.jsonl")]
    args += ["--repo", f"octo/calc={repo}"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SPICE_DATA_DIR": str(tmp_path / "d")}
    env["PYENV_ROOT"] = str(Path.home() / ".pyenv")
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)


def test_a_batch_reports_each_instance_keeps_each_row_and_resumes(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]], sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    missing = row | {"instance_id": "octo__calc-2", "base_commit": "f" * 40}
    first = _run(tmp_path, [missing], repo)
    assert first.returncode == 3, first.stderr  # none validated
    assert "validate: [1/1] octo__calc-2 missing_commit" in first.stderr
    [kept] = (tmp_path / "out.jsonl").read_text().splitlines()
    assert json.loads(kept)["instance_id"] == "octo__calc-2"

    twice = row | {"instance_id": "octo__calc-3"}
    again = _run(tmp_path, [missing, row, twice], repo)  # the batch again, two more
    assert again.returncode == 0, again.stderr
    assert "resuming, 1 of 3 already in" in again.stderr
    assert "validate: [1/2] octo__calc-1 valid" in again.stderr
    assert "validate: [2/2] octo__calc-3 valid" in again.stderr
    # Off a terminal each phase is a line as it starts (a heartbeat fills longer silences).
    said = [line.split(" (at ")[0] for line in again.stderr.splitlines() if "octo__calc-1 " in line]
    phases = ["environment", "before", "after", "reruns"]
    assert said[:4] == [f"validate: octo__calc-1 {p}" for p in phases], again.stderr
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in rows] == ["octo__calc-2", "octo__calc-1", "octo__calc-3"]
    assert json.loads(rows[1]["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add"]
    assert json.loads(again.stdout)["statuses"] == {"missing_commit": 1, "valid": 2}
    # Its run logs are kept beside the output, and every test in them is accounted for.
    validation = rows[1]["spice"]["validation"]
    logs = Path(validation["logs"])
    assert logs == tmp_path / "out.jsonl.logs" / "octo__calc-1"
    with gzip.open(logs / "before.log.gz", "rt") as fh:
        assert "FAILED tests/test_calc.py::test_add" in fh.read()
    assert validation["tests"]["counts"]["fail_to_pass"] == 1
    assert validation["tests"]["counts"]["pass_to_pass"] == 1


def test_a_failed_validation_says_why_on_its_line() -> None:
    validation = {"status": "error", "detail": "pip install failed: no matching distribution\n..."}
    row = {"instance_id": "octo__calc-2", "spice": {"validation": validation}}
    assert outcome_line(row, 1, 2) == (
        "validate: [1/2] octo__calc-2 error (0 s): pip install failed: no matching distribution"
    )
    valid = {"status": "valid", "detail": "", "durations": {"total": 12.4}}
    row = {"instance_id": "octo__calc-1", "spice": {"validation": valid}}
    assert outcome_line(row, 2, 2) == "validate: [2/2] octo__calc-1 valid (12 s)"
    offline = valid | {"detail": offline_line(2)}
    row = {"instance_id": "octo__calc-1", "spice": {"validation": offline}}
    assert outcome_line(row, 2, 2).startswith(
        "validate: [2/2] octo__calc-1 valid (12 s): 2 tests need the network"
    )

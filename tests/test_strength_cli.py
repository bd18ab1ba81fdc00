"""`spice test-strength`: a row it cannot measure gets a status saying why, and the rest go on;
a rerun resumes (rows already in --out are not measured again)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from app.cli.main import cli


def _invoked(tmp_path: Path, rows: Path, given: str) -> tuple[Result, Path]:
    """`spice test-strength` of `rows` with an empty folder given as repository `given`."""
    repo = tmp_path / "empty"
    repo.mkdir(exist_ok=True)
    out = tmp_path / "out.jsonl"
    args = ["test-strength", str(rows), "--out", str(out), "--repo", f"{given}={repo}"]
    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    return CliRunner().invoke(cli, [*args, "--no-sandbox"], env=env), out


def test_rows_it_cannot_measure_say_why_and_a_rerun_resumes(tmp_path: Path) -> None:
    rows = tmp_path / "in.jsonl"
    base = {"repo": "octo/none", "base_commit": "0" * 40, "patch": "", "test_patch": ""}
    rows.write_text(
        json.dumps(base | {"instance_id": "a", "FAIL_TO_PASS": '["t.py::test_a"]'})
        + "\n"
        + json.dumps(base | {"instance_id": "b", "FAIL_TO_PASS": "[]", "PASS_TO_PASS": "[]"})
        + "\n"
    )
    done, out = _invoked(tmp_path, rows, "octo/none")
    assert done.exit_code == 0, done.output
    got = {r["instance_id"]: r["spice"]["test_strength"] for r in map(json.loads, out.open())}
    assert got["a"]["status"] == "missing_commit" and "not in repo" in got["a"]["detail"]
    assert got["b"]["status"] == "no_fail_to_pass"
    again, _ = _invoked(tmp_path, rows, "octo/none")
    assert again.exit_code == 0 and len(out.read_text().splitlines()) == 2


def test_a_repository_named_in_another_case_is_the_one_given(tmp_path: Path) -> None:
    """GitHub's owner and repository names ignore case: rows naming `FasterXML/jackson-core`
    are run in the copy given as `fasterxml/jackson-core`."""
    rows = tmp_path / "in.jsonl"
    row = {"instance_id": "a", "repo": "Octo/None", "base_commit": "0" * 40, "patch": ""}
    rows.write_text(json.dumps(row | {"test_patch": "", "FAIL_TO_PASS": '["t.py::test_a"]'}))
    done, out = _invoked(tmp_path, rows, "octo/none")
    assert done.exit_code == 0, done.output
    got = json.loads(out.read_text())["spice"]["test_strength"]
    assert got["status"] == "missing_commit" and "not in repo" in got["detail"], got

"""`spice evaluate` beyond Python: a Go module validated in the real sandbox, graded for its
gold patch (resolved), no fix and a wrong fix (not resolved), in the validation's environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spice_engine.validate.bubblewrap import Bubblewrap
from tests.grading_support import report_of, rewrite_diff, spice, write_predictions
from tests.lang_projects import project_instance

CALC = Path(__file__).parent / "data" / "lang_go" / "calc"
PKG = "example.com/calc/mathx"


@pytest.mark.timeout(1800)
def test_a_go_instance_is_graded_gold_resolved_others_not(tmp_path: Path) -> None:
    if why := Bubblewrap().problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    repo = tmp_path / "repo"
    row = project_instance(CALC, repo, "acme/mathx")
    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    rows, validated = tmp_path / "rows.jsonl", tmp_path / "validated.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    spice(env, "validate", str(rows), "--out", str(validated), "--repo", f"acme/mathx={repo}")
    task = json.loads(validated.read_text())
    assert task["spice"]["validation"]["status"] == "valid", task["spice"]["validation"]
    fixed = (CALC / "fix" / "mathx" / "mathx.go").read_text()
    base = row["base_commit"]
    base_text = (CALC / "base" / "mathx" / "mathx.go").read_text()
    patches: dict[str, str | None] = {
        "gold": row["patch"],
        "no-fix": rewrite_diff(repo, base, {"mathx/mathx.go": "// Arithmetic.\n" + base_text}),
        "wrong": rewrite_diff(
            repo, base, {"mathx/mathx.go": fixed.replace("return a - b", "return a + b")}
        ),
    }
    predictions, out = tmp_path / "preds.jsonl", tmp_path / "eval"
    write_predictions(predictions, row["instance_id"], patches)
    args = ["--dataset", str(validated), "--repo", f"acme/mathx={repo}", "--out", str(out)]
    summary = json.loads(spice(env, "evaluate", str(predictions), *args))

    ours = {m: report_of(out, m, row["instance_id"]) for m in patches}
    assert all(r and r["patch_successfully_applied"] for r in ours.values()), ours
    # Each run's output is kept, a build that failed included (its results beside it).
    assert all((out / m / row["instance_id"] / "test_output.txt").is_file() for m in patches)
    assert ours["gold"] and ours["gold"]["resolved"] is True
    f2p = json.loads(task["FAIL_TO_PASS"])
    assert ours["gold"]["tests_status"]["FAIL_TO_PASS"]["success"] == f2p
    # Without Sub the test patch does not build: none of its tests passes.
    assert ours["no-fix"] and ours["no-fix"]["resolved"] is False
    assert ours["no-fix"]["tests_status"]["FAIL_TO_PASS"]["failure"] == f2p
    assert ours["wrong"] and ours["wrong"]["resolved"] is False
    assert ours["wrong"]["tests_status"]["FAIL_TO_PASS"]["failure"] == [f"{PKG}::TestSub"]
    resolved = {
        m: json.loads(Path(path).read_text())["resolved_ids"]
        for m, path in summary["summaries"].items()
    }
    assert resolved == {"gold": [row["instance_id"]], "no-fix": [], "wrong": []}

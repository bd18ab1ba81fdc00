"""`spice evaluate` on a Python instance validated in the real sandbox: the gold patch, an empty
one, a comment-only one, a partial fix and a stale patch, graded as swebench 5.0.2 grades the
same logs (tests/swebench_referee.py), its run summaries as its `make_run_report` makes them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from spice_engine.grading.reports import resolved, verdicts
from spice_engine.validate.outcomes import TestStatus
from tests.fakes.sample_project import CALC_FIX, calc_project, instance_of
from tests.grading_support import report_of, rewrite_diff, spice, write_predictions
from tests.swebench_referee import referee_fixture  # noqa: F401
from tests.validation_support import sandbox_fixture  # noqa: F401

BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TESTS = (
    "\n\ndef test_add():\n    from calc import add\n    assert add(2, 3) == 5\n"
    "\n\ndef test_add_negative():\n    from calc import add\n    assert add(-2, -3) == -5\n"
)
REFEREE = """
import json, os, sys
from swebench.harness.grading import get_eval_report
from swebench.harness.reporting import make_run_report
from swebench.harness.utils import make_test_spec

case = json.load(open(sys.argv[1]))
row = case["row"]
spec = make_test_spec(row)
reports, summaries = {}, {}
for model, patch in case["patches"].items():
    prediction = {"instance_id": row["instance_id"], "model_name_or_path": model, "model_patch": patch}
    log = case["logs"].get(model)
    if log:
        reports[model] = get_eval_report(spec, prediction, log, True)[row["instance_id"]]
    os.chdir(case["cwd"])
    path = make_run_report({row["instance_id"]: prediction}, [row], "spice", None, case["ref"])
    summaries[model] = json.load(open(path))
print(json.dumps({"reports": reports, "summaries": summaries}))
"""


@pytest.mark.timeout(1800)
def test_python_verdicts_equal_swebench_on_the_same_runs(
    referee: Path, sandbox: object, tmp_path: Path
) -> None:
    repo = tmp_path / "calc"
    calc_project(repo, calc=BUGGY)
    row = instance_of(repo, "octo/calc", CALC_FIX, ("tests/test_calc.py", TESTS), "add subtracts")
    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    rows, validated = tmp_path / "rows.jsonl", tmp_path / "validated.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    spice(env, "validate", str(rows), "--out", str(validated), "--repo", f"octo/calc={repo}")
    task = json.loads(validated.read_text())
    assert json.loads(task["FAIL_TO_PASS"]) == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_add_negative",
    ]
    base = row["base_commit"]
    patches: dict[str, str | None] = {
        "gold": row["patch"],
        "org/comment-only": rewrite_diff(repo, base, {"calc.py": "# Arithmetic.\n" + BUGGY}),
        "partial": rewrite_diff(
            repo, base, {"calc.py": BUGGY.replace("a - b", "a + b if a > 0 else a - b")}
        ),
        "stale": row["patch"].replace("return a - b", "return a // b"),
        "empty": "",
    }
    predictions, out = tmp_path / "preds.jsonl", tmp_path / "logs" / "run_evaluation" / "spice"
    write_predictions(predictions, "octo__calc-1", patches)
    args = ["--dataset", str(validated), "--repo", f"octo/calc={repo}", "--out", str(out)]
    spice(env, "evaluate", str(predictions), *args)

    ours = {m: report_of(out, m, "octo__calc-1") for m in patches}
    assert ours["gold"] and ours["gold"]["resolved"] is True
    assert ours["partial"] and ours["partial"]["tests_status"]["FAIL_TO_PASS"] == {
        "success": ["tests/test_calc.py::test_add"],
        "failure": ["tests/test_calc.py::test_add_negative"],
    }
    assert ours["stale"] == {
        "patch_is_None": False,
        "patch_exists": True,
        "patch_successfully_applied": False,
        "resolved": False,
        "infra_failure": False,
    }
    assert ours["empty"] is None  # SWE-bench runs no empty patch
    logs = {
        m: str(out / m.replace("/", "__") / "octo__calc-1" / "test_output.txt")
        for m in ("gold", "org/comment-only", "partial")
    }
    case = {"row": task, "patches": patches, "logs": logs, "cwd": str(tmp_path), "ref": "ref"}
    (tmp_path / "case.json").write_text(json.dumps(case))
    done = subprocess.run(
        [str(referee), "-c", REFEREE, str(tmp_path / "case.json")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    referee_says = json.loads(done.stdout.strip().splitlines()[-1])
    for model, report in referee_says["reports"].items():
        assert ours[model] == report, model  # the same verdict, the same test lists
    for model, theirs in referee_says["summaries"].items():
        mine = json.loads((out / f"{model.replace('/', '__')}.spice.json").read_text())
        assert mine == theirs, model
    assert [m for m, r in ours.items() if r and r["resolved"]] == ["gold"]


def test_swebench_rules_for_skips_and_cut_ids() -> None:
    run = {
        "t.py::a[x-1]": TestStatus.PASSED,
        "t.py::a[x-2]": TestStatus.XFAIL,
        "t.py::b": TestStatus.SKIPPED,
        "t.py::c": TestStatus.SKIPPED,
    }
    # A cut id stands for the ids it begins; a skipped F2P fails, a skipped P2P is kept.
    status = verdicts(["t.py::a[x", "t.py::b"], ["t.py::c", "t.py::gone"], run)
    assert status.fail_to_pass.success == ["t.py::a[x"]
    assert status.fail_to_pass.failure == ["t.py::b"]
    assert status.pass_to_pass.success == ["t.py::c"]
    assert status.pass_to_pass.failure == ["t.py::gone"]
    assert not resolved(status) and resolved(verdicts(["t.py::a[x"], ["t.py::c"], run))


def test_bad_input_to_evaluate_is_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from app.cli.main import cli

    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    preds, dataset = tmp_path / "preds.jsonl", tmp_path / "tasks.jsonl"
    dataset.write_text(
        json.dumps(
            {
                "instance_id": "o__r-1",
                "repo": "o/r",
                "base_commit": "abc",
                "test_patch": "",
                "FAIL_TO_PASS": "[]",
                "PASS_TO_PASS": "[]",
            }
        )
        + "\n"
    )
    cases = {
        "": "error: give --dataset EXPORT to grade on (label agreement is `spice eval`)",
        "{nope\n": f"error: {preds}:1: not JSON (Expecting property name enclosed in double quotes)",
        '{"instance_id": "o__r-1"}\n': f"error: {preds}: prediction 1: model_name_or_path: Field required",
        '{"instance_id": "x__y-2", "model_name_or_path": "m", "model_patch": "p"}\n': (
            f"error: predictions for instances not in {dataset}: x__y-2"
        ),
    }
    for text, said in cases.items():
        preds.write_text(text)
        args = ["evaluate", str(preds)] + (["--dataset", str(dataset)] if text else [])
        done = CliRunner().invoke(cli, args, env=env)
        assert done.exit_code == 1 and done.stderr.strip() == said, done.output

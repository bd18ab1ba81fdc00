"""`spice harvest --from`: merged pull requests read from a local bundle, no GitHub — a merge
commit naming its pull, a squash commit `(#N)`, a merge known only by its `refs/pull/N/head` —
then the builder's whole path: validate in the sandbox, export, Multi-SWE-bench's records,
and `spice evaluate` of the gold patch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.harvest.local_history import UNKNOWN_ISSUE
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.local_history import make_history
from tests.grading_support import report_of, spice, write_predictions


def history(tmp_path: Path) -> tuple[Path, str]:
    bundle = tmp_path / "mathx.bundle"
    return bundle, make_history(tmp_path / "work", bundle)


def test_merged_pulls_come_from_a_bundle_with_their_issues_named(tmp_path: Path) -> None:
    bundle, base = history(tmp_path)
    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    report = json.loads(spice(env, "harvest", "acme/mathx", "--from", str(bundle), "--no-label"))
    assert report["kept"] == 1 and report["processed"] == 3
    # #15 closes #8 but changes no test; #16 (known by its pull ref only) names no issue.
    assert report["skipped"] == {"no_test_change": 1, "no_linked_issue": 1}
    harvested = tmp_path / "harvested.jsonl"
    spice(env, "export", "--include-unvalidated", "--out", str(harvested))
    [row] = [json.loads(line) for line in harvested.read_text().splitlines()]
    assert row["instance_id"] == "acme__mathx-12" and row["base_commit"] == base
    assert "mathx/add_test.go" in row["test_patch"] and "func Sub" in row["patch"]
    assert row["problem_statement"] == f"#7\n{UNKNOWN_ISSUE}\n"
    assert row["spice"]["linked_issues"] == [7]
    again = json.loads(spice(env, "harvest", "acme/mathx", "--from", str(bundle), "--no-label"))
    assert again["processed"] == 0  # the cursor moved past them


def test_a_bad_source_is_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from app.cli.main import cli

    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    done = CliRunner().invoke(cli, ["harvest", "a/b", "--from", str(tmp_path / "nope")], env=env)
    assert (
        done.exit_code == 1
        and done.stderr.strip() == f"error: no repository or bundle at {tmp_path / 'nope'}"
    )


@pytest.mark.timeout(1800)
def test_the_builders_path_from_a_bundle_to_a_graded_run(tmp_path: Path) -> None:
    if why := Bubblewrap().problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    bundle, _ = history(tmp_path)
    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    spice(env, "harvest", "acme/mathx", "--from", str(bundle), "--no-label")
    harvested, validated = tmp_path / "harvested.jsonl", tmp_path / "validated.jsonl"
    spice(env, "export", "--include-unvalidated", "--out", str(harvested))
    repo = f"acme/mathx={bundle}"
    spice(env, "validate", str(harvested), "--out", str(validated), "--repo", repo, "--store")
    tasks, records = tmp_path / "tasks.jsonl", tmp_path / "msb.jsonl"
    spice(env, "export", "--out", str(tasks))
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert task["version"].startswith("go1.") and task["environment_recipe"]
    assert task["environment_setup_commit"] == task["base_commit"]
    spice(env, "export", "--format", "multi-swe-bench", "--out", str(records))
    [record] = [json.loads(line) for line in records.read_text().splitlines()]
    assert (record["org"], record["repo"], record["number"]) == ("acme", "mathx", 12)
    assert record["resolved_issues"] == [{"number": 7, "title": "#7", "body": UNKNOWN_ISSUE}]
    assert sorted(record["n2p_tests"]) == json.loads(task["FAIL_TO_PASS"])
    predictions, out = tmp_path / "preds.jsonl", tmp_path / "eval"
    write_predictions(predictions, task["instance_id"], {"gold": task["patch"]})
    spice(
        env,
        "evaluate",
        str(predictions),
        "--dataset",
        str(tasks),
        "--repo",
        repo,
        "--out",
        str(out),
    )
    graded = report_of(out, "gold", task["instance_id"])
    assert graded and graded["resolved"] is True

"""`spice harvest --from`: merged pull requests read from a local bundle, no GitHub — a merge
commit naming its pull, a squash commit `(#N)`, a merge known only by its `refs/pull/N/head` —
then the builder's whole path in Go, Rust and JavaScript: validate in the sandbox, export,
Multi-SWE-bench's records, and `spice evaluate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.harvest.local_history import UNKNOWN_ISSUE
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.local_history import make_history
from tests.grading_support import report_of, spice, write_predictions
from tests.lang_projects import registry_problem
from tests.msb_referee import load_records, msb_referee_fixture  # noqa: F401


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


NO_FIX = (
    "diff --git a/UNRELATED.md b/UNRELATED.md\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/UNRELATED.md\n@@ -0,0 +1 @@\n+Nothing to do with the issue.\n"
)
WRONG = {  # each sample's fix with its one changed line made wrong
    "lang_go/calc": (
        "+func Sub(a, b int) int { return a - b }",
        "+func Sub(a, b int) int { return a + b }",
    ),
    "lang_rust": ("+    values.iter().sum()", "+    values.iter().map(|v| v.abs()).sum()"),
    "lang_js/calc": ("+  return a + b", "+  return a + b + 1"),
}


@pytest.mark.timeout(2400)
@pytest.mark.parametrize(
    ("project", "repo_name"),
    [("lang_go/calc", "acme/mathx"), ("lang_rust", "acme/tally"), ("lang_js/calc", "acme/calcjs")],
)
def test_the_builders_path_from_a_bundle_to_a_graded_run(
    tmp_path: Path, project: str, repo_name: str, msb_referee: Path
) -> None:
    """Harvest from a bundle, validate in the sandbox, export both formats (multi-swe-bench
    loads the records and splits their tests as we did), grade gold (resolved), no fix and a
    wrong fix (not resolved), and an empty patch (counted as such)."""
    registry = "registry.npmjs.org" if "js" in project else None
    if why := Bubblewrap().problem(tmp_path) or (registry and registry_problem(registry)):
        pytest.skip(f"cannot run here: {why}")
    bundle = tmp_path / "sample.bundle"
    make_history(tmp_path / "work", bundle, project)
    env = {"SPICE_DATA_DIR": str(tmp_path / "data")}
    spice(env, "harvest", repo_name, "--from", str(bundle), "--no-label")
    harvested, validated = tmp_path / "harvested.jsonl", tmp_path / "validated.jsonl"
    spice(env, "export", "--include-unvalidated", "--out", str(harvested))
    repo = f"{repo_name}={bundle}"
    spice(env, "validate", str(harvested), "--out", str(validated), "--repo", repo, "--store")
    tasks, records = tmp_path / "tasks.jsonl", tmp_path / "msb.jsonl"
    spice(env, "export", "--out", str(tasks))
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    recipe = json.loads(task["environment_recipe"])
    assert task["version"] and recipe["install"] and recipe["test_command"]
    assert task["environment_setup_commit"] == task["base_commit"] == recipe["setup_commit"]
    spice(env, "export", "--format", "multi-swe-bench", "--out", str(records))
    [record] = [json.loads(line) for line in records.read_text().splitlines()]
    assert record["number"] == 12 and record["instance_id"] == task["instance_id"]
    assert record["resolved_issues"] == [{"number": 7, "title": "#7", "body": UNKNOWN_ISSUE}]
    loaded = load_records(msb_referee, records)[task["instance_id"]]
    assert loaded["valid"] is True and loaded["loaded"] == loaded["recomputed"]
    fail_to_pass = json.loads(task["FAIL_TO_PASS"])
    assert sorted(loaded["loaded"]["f2p_tests"] + loaded["loaded"]["n2p_tests"]) == fail_to_pass
    predictions, out = tmp_path / "preds.jsonl", tmp_path / "eval"
    wrong = task["patch"].replace(*WRONG[project])
    assert wrong != task["patch"]
    patches: dict[str, str | None] = {
        "gold": task["patch"],
        "no-fix": NO_FIX,
        "wrong": wrong,
        "empty": "",
    }
    write_predictions(predictions, task["instance_id"], patches)
    args = ["--dataset", str(tasks), "--repo", repo, "--out", str(out), "--workers", "2"]
    summary = json.loads(spice(env, "evaluate", str(predictions), *args))
    graded = {m: report_of(out, m, task["instance_id"]) for m in ("gold", "no-fix", "wrong")}
    assert all(r and r["patch_successfully_applied"] for r in graded.values()), graded
    assert {m: r["resolved"] for m, r in graded.items() if r} == {
        "gold": True,
        "no-fix": False,
        "wrong": False,
    }
    empty = json.loads(Path(summary["summaries"]["empty"]).read_text())
    assert empty["empty_patch_ids"] == [task["instance_id"]] and empty["resolved_ids"] == []

"""Every command, given the bad inputs a newcomer gives it: one line on stderr naming what
went wrong, exit non-zero, never a traceback, never a meaningless result with exit 0."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fakes.github_fixtures import REPO, fake_github_fixture  # noqa: F401
from tests.fakes.github_server import FakeGitHub

ROOT = Path(__file__).resolve().parents[1]
SPICE = str(ROOT / ".venv" / "bin" / "spice")
DATA = ROOT / "tests" / "data"


def spice(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SPICE_", "GITHUB_"))}
    full = base | {"SPICE_DATA_DIR": str(tmp_path / "data"), "SPICE_LOG_DIR": str(tmp_path)}
    return subprocess.run(
        [SPICE, *args],
        cwd=tmp_path,
        env=full | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_one_line_error(done: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert done.returncode not in (0, None), (
        done.returncode,
        done.stdout[-500:],
        done.stderr[-2000:],
    )
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for text in expected:
        assert text in lines[0], lines[0]


@pytest.fixture
def github_env(fake_github: FakeGitHub) -> dict[str, str]:
    return {
        "SPICE_GITHUB_API_URL": fake_github.base_url,
        "SPICE_GITHUB_TOKEN": fake_github.bot_token,
    }


def test_harvest_of_a_missing_repository_or_with_a_bad_token(
    tmp_path: Path, github_env: dict[str, str]
) -> None:
    done = spice(tmp_path, "harvest", "octo-org/no-such-repo", "--no-label", **github_env)
    assert_one_line_error(done, "404")
    bad = github_env | {"SPICE_GITHUB_TOKEN": "ghp_wrong"}
    assert_one_line_error(spice(tmp_path, "harvest", REPO, "--no-label", **bad), "401")


def test_worker_without_github_credentials(tmp_path: Path) -> None:
    assert_one_line_error(spice(tmp_path, "worker"), "GitHub credentials")


def test_evaluations_with_nothing_to_compare_are_errors(tmp_path: Path) -> None:
    instances = DATA / "pr_evidence_instances.jsonl"
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("instance_id,something_else\nnope__nope-1,3\n")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    done = spice(tmp_path, "signals", "--instances", str(instances), "--gold", str(wrong))
    assert_one_line_error(done, "wrong.csv")
    done = spice(tmp_path, "pr-signals", "--instances", str(instances), "--gold", str(empty))
    assert_one_line_error(done, "empty.csv")
    done = spice(tmp_path, "pr-signals", "--instances", str(instances), "--gold", str(wrong))
    assert_one_line_error(done, "wrong.csv")
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"instance_id": "other__repo-9", "clarity": 1}) + "\n")
    gold = DATA / "pr_evidence_labels.csv"
    done = spice(tmp_path, "eval", "--gold", str(gold), "--predictions", str(predictions))
    assert_one_line_error(done, "no prediction matches")


def test_label_pr_refuses_a_broken_json_issue_file(tmp_path: Path) -> None:
    broken = tmp_path / "issue.json"
    broken.write_text('{"title": "x", ')
    done = spice(
        tmp_path, "label-pr", "--diff", str(DATA / "pr_handmade.diff"), "--issue-file", str(broken)
    )
    assert_one_line_error(done, "issue.json", "JSON")


def test_label_instance_report_needs_dry_run(tmp_path: Path) -> None:
    done = spice(tmp_path, "label-instance", str(DATA / "pr_evidence_instances.jsonl"), "--report")
    assert_one_line_error(done, "--report", "--dry-run")


def test_split_diff_action_and_export_bad_input(tmp_path: Path) -> None:
    garbage = tmp_path / "x.diff"
    garbage.write_text("@@ this is not @@ a diff\n+++\n")
    assert_one_line_error(spice(tmp_path, "split-diff", str(garbage)), "x.diff")
    assert_one_line_error(spice(tmp_path, "action"), "GITHUB_EVENT")
    done = spice(tmp_path, "export", "--out", str(tmp_path / "o.jsonl"), "--format", "bogus")
    assert_one_line_error(done, "bogus")


def test_an_unexpected_failure_is_one_line_and_a_log_file(tmp_path: Path) -> None:
    # A directory where a file is expected: none of the expected errors, a bug of ours.
    done = spice(tmp_path, "split-diff", str(tmp_path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    line = done.stderr.strip()
    if "details in" in line:
        log = Path(line.rsplit("details in ", 1)[1].rstrip(")"))
        assert log.parent == tmp_path and "Traceback" in log.read_text()


def test_validate_and_label_issues_bad_input(tmp_path: Path) -> None:
    broken = tmp_path / "rows.jsonl"
    broken.write_text('{"instance_id": "a"\n')
    out = tmp_path / "out.jsonl"
    assert_one_line_error(spice(tmp_path, "validate", str(broken), "--out", str(out)), "rows.jsonl")
    assert_one_line_error(
        spice(tmp_path, "test-strength", str(broken), "--out", str(out)), "rows.jsonl"
    )
    assert_one_line_error(
        spice(tmp_path, "label-issues", str(broken), "--out", str(out)), "rows.jsonl"
    )
    missing = tmp_path / "missing.jsonl"
    assert_one_line_error(
        spice(tmp_path, "label-issues", str(missing), "--out", str(out)), "missing.jsonl"
    )


def test_harvest_of_a_url_is_refused_at_once_naming_the_name_to_give(tmp_path: Path) -> None:
    done = spice(tmp_path, "harvest", "https://github.com/octo-org/widgets", "--no-label")
    assert_one_line_error(done, "not a URL", "spice harvest octo-org/widgets")


def test_a_data_dir_that_cannot_be_one_is_named_by_its_setting(tmp_path: Path) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("")
    done = spice(
        tmp_path, "export", "--out", str(tmp_path / "out.jsonl"), SPICE_DATA_DIR=str(taken)
    )
    assert_one_line_error(done, f"SPICE_DATA_DIR={taken}")

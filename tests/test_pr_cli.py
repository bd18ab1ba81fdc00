"""The PR commands through the real CLI: contract keys, dry-run report, fake-model labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from tests.fakes.openai_server import FakeOpenAI
from tests.test_pr_context import make_repo

runner = CliRunner()


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPICE_DATA_DIR", str(tmp_path / "data"))
    for name in ("SPICE_MODEL", "SPICE_API_BASE", "SPICE_VOTES"):
        monkeypatch.delenv(name, raising=False)


def write_instances(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "instances.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_split_diff_json_contract(swebench_instances: list[dict[str, Any]], tmp_path: Path) -> None:
    row = next(r for r in swebench_instances if r.get("test_patch"))
    diff = tmp_path / "pr.diff"
    diff.write_bytes((row["patch"] + row["test_patch"]).encode())
    result = runner.invoke(cli, ["split-diff", str(diff), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"gold", "test", "files"}
    assert data["gold"] == row["patch"] and data["test"] == row["test_patch"]
    assert all(
        set(f) == {"path", "kind"} and f["kind"] in {"test", "source"} for f in data["files"]
    )


def test_split_diff_malformed_exits_non_zero(tmp_path: Path) -> None:
    bad = tmp_path / "bad.diff"
    bad.write_text("this is not a diff\n")
    result = runner.invoke(cli, ["split-diff", str(bad), "--json"])
    assert result.exit_code == 1
    assert "malformed diff" in result.output


def test_dry_run_report_contract(
    swebench_instances: list[dict[str, Any]], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    rows = [r for r in swebench_instances if r.get("test_patch")][:12]
    path = write_instances(tmp_path, rows)
    result = runner.invoke(
        cli,
        ["label-instance", str(path), "--dry-run", "--report", "--json", "--cost-model", "gpt-4o"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    for dim in ("tests", "difficulty", "clarity"):
        assert report[dim]["input_tokens_median"] <= report[dim]["input_tokens_p90"]
        assert report[dim]["input_tokens_median"] > 100
    costs = report["cost_per_1000_usd"]
    assert set(costs) == {"gpt-4o-mini", "gpt-4o"} and 0 < costs["gpt-4o-mini"] < costs["gpt-4o"]
    assert report["context_modes"] == {"patches_only": 12}
    assert fake_openai.requests == []  # a dry run never calls a model


def test_label_instance_with_repos_dir_and_fake_model(
    swebench_instances: list[dict[str, Any]], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    repo, base, diff = make_repo(tmp_path)
    repos = tmp_path / "repos"
    repos.mkdir()
    repo.rename(repos / "acme__shop")
    ours = {
        "instance_id": "acme__shop-1",
        "repo": "acme/shop",
        "base_commit": base,
        "problem_statement": "Tax rate per call\nLet total() take a rate.",
        "patch": diff.split("diff --git a/tests/")[0],
        "test_patch": "diff --git a/tests/" + diff.split("diff --git a/tests/")[1],
    }
    real = next(r for r in swebench_instances if r.get("test_patch"))
    path = write_instances(tmp_path, [ours, real])
    args = ["label-instance", str(path), "--repos-dir", str(repos), "--json"]
    args += ["--model", "openai/fake", "--api-base", fake_openai.api_base, "--votes", "3"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["context"]["mode"] == "repository"
    assert second["context"]["mode"] == "patches_only"
    assert first["tests"]["valid_votes"] == 3 and first["difficulty"]["score"] is not None
    assert (tmp_path / "data" / "checkouts" / "repos" / "acme__shop" / ".git").is_dir()


def test_label_pr_end_to_end(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    repo, base, diff = make_repo(tmp_path)
    diff_file, issue = tmp_path / "pr.diff", tmp_path / "issue.md"
    diff_file.write_text(diff)
    issue.write_text("# Tax rate per call\n\nLet `total()` take a tax rate.\n")
    args = ["label-pr", "--repo", str(repo), "--base", base, "--diff", str(diff_file)]
    args += [
        "--issue-file",
        str(issue),
        "--model",
        "openai/fake",
        "--api-base",
        fake_openai.api_base,
    ]
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    text = runner.invoke(cli, args).stdout  # the same result, as people read it
    tokens = data["context"]["prompt_tokens"]
    assert f"prompt tokens: tests {tokens['tests']:,} · difficulty {tokens['difficulty']:,}" in text
    assert "{" not in text.split("context:")[1].splitlines()[0]  # no Python dict
    assert data["judged_against"] == "linked_issues"
    assert data["context"]["mode"] == "repository"
    assert "Tax rate per call" in fake_openai.requests[0]["messages"][1]["content"]

    bad = tmp_path / "bad.diff"
    bad.write_text("@@ nonsense\n")
    result = runner.invoke(cli, [*args[:6], str(bad), "--model", "openai/fake"])
    assert result.exit_code == 1 and "malformed diff" in result.output


def test_label_instance_reports_a_bad_instance_and_labels_the_rest(
    swebench_instances: list[dict[str, Any]], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    good = next(r for r in swebench_instances if r.get("test_patch"))
    bad = {**good, "instance_id": "broken-1", "patch": "not a diff\n", "test_patch": ""}
    path = write_instances(tmp_path, [bad, good])
    args = ["label-instance", str(path), "--json", "--model", "openai/fake"]
    result = runner.invoke(cli, [*args, "--api-base", fake_openai.api_base, "--votes", "1"])
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert lines[0] == {"instance_id": "broken-1", "error": lines[0]["error"]}
    assert "malformed diff" in lines[0]["error"]
    assert lines[1]["difficulty"]["score"] is not None

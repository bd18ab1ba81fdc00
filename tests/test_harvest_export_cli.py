"""`spice harvest` then `spice export` from the command line, against the fake GitHub: resumed
harvests, unlabelled and labelled rows, `--verified-like`, and a harvest whose every label
fails."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import cli
from tests.fakes.github_server import FakeGitHub
from tests.fakes.harvest_history import seed_history
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.harvest_support import harvest_env


def test_cli_harvest_then_export(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=16)
        env = harvest_env(
            gh, tmp_path, SPICE_MODEL="openai/fake", SPICE_API_BASE=fake_openai.api_base
        )
        runner = CliRunner()
        first = runner.invoke(cli, ["harvest", history.repo, "--no-label", "--max", "5"], env=env)
        assert first.exit_code == 0, first.output
        assert json.loads(first.stdout)["processed"] == 5
        rest = runner.invoke(cli, ["harvest", history.repo], env=env)
        assert rest.exit_code == 0, rest.output
        report = json.loads(rest.stdout)
        assert report["processed"] == sum(1 for p in history.prs if p.merged_at) - 5
    kept = sorted(f"acme__widgets-{p.number}" for p in history.kept)
    out = tmp_path / "all.jsonl"
    done = runner.invoke(cli, ["export", "--out", str(out)], env=env)
    assert done.exit_code == 0 and out.read_text() == "", done.output  # nothing validated
    done = runner.invoke(cli, ["export", "--out", str(out), "--include-unvalidated"], env=env)
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["instance_id"] for r in rows) == kept
    # The first run stored unlabelled (--no-label); the second labelled only what it built.
    first_five = {p.number for p in [p for p in history.prs if p.merged_at][:5]}
    labelled = {r["instance_id"] for r in rows if r["spice"]["labelled"]}
    assert labelled == {
        f"acme__widgets-{p.number}" for p in history.kept if p.number not in first_five
    }
    assert labelled and len(labelled) < len(rows)
    verified = tmp_path / "v.jsonl"
    args = ["export", "--out", str(verified), "--verified-like", "--include-unvalidated"]
    done = runner.invoke(cli, args, env=env)
    assert done.exit_code == 0, done.output
    for line in verified.read_text().splitlines():
        assert json.loads(line)["difficulty"] in ("<15 min fix", "15 min - 1 hour", "1-4 hours")
        spice = json.loads(line)["spice"]
        assert spice["clarity"]["score"] < 2 and spice["tests"]["score"] < 2


def test_cli_harvest_where_every_label_fails_exits_non_zero(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.responder = lambda r: Reply(status=401, error="Incorrect API key provided")
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=6)
        env = harvest_env(gh, tmp_path)
        args = ["harvest", history.repo, "--model", "openai/fake"]
        done = CliRunner().invoke(cli, [*args, "--api-base", fake_openai.api_base], env=env)
    assert done.exit_code == 1, done.output
    report = json.loads(done.stdout.split("error:")[0])
    assert report["kept"] == len(history.kept) > 0
    assert report["label_failed"] == report["kept"]
    assert "labelling failed for all" in done.output

"""`spice action`: the same handlers on $GITHUB_EVENT_PATH, JSON output, non-zero on failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from typer.testing import CliRunner

from app.cli.main import cli
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]


def _env(
    gh: FakeGitHub, model: FakeOpenAI, tmp_path: Path, event: str = "issues"
) -> dict[str, str]:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(payload(gh, event, "opened", REPO, 3)))
    return {
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_TOKEN": gh.bot_token,
        "GITHUB_API_URL": gh.base_url,
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_RUN_ID": "77",
        "SPICE_API_BASE": model.api_base,
        "SPICE_API_KEY": "sk-test",
        "SPICE_OUTPUT_MODE": "json_object",
        "SPICE_BOT_LOGIN": gh.bot_login,
        "SPICE_MAX_ATTEMPTS": "1",
    }


def test_action_labels_comments_and_writes_json_output(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_openai.responder = scripted([3])
    env = _env(fake_github, fake_openai, tmp_path)
    result = CliRunner().invoke(cli, ["action", "--model", "openai/fake", "--votes", "3"], env=env)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["delivery"]["delivery_id"] == "action-77-1"
    assert out["done"]["comment"]["action"] == "created"
    assert fake_github.label_names(REPO, 3) == ["clarity: underspecified"]
    written = (tmp_path / "output").read_text()
    assert written.startswith("json<<spice_") and json.loads(written.splitlines()[1]) == out


def test_with_a_personal_token_the_action_knows_its_own_comment_and_labels(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    # No SPICE_BOT_LOGIN: whom the token acts as is asked of GitHub, so the second run edits
    # its comment and swaps its own label instead of taking both for somebody else's.
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    env = _env(fake_github, fake_openai, tmp_path)
    env.pop("SPICE_BOT_LOGIN")
    env["GITHUB_TOKEN"] = fake_github.personal_token("release-bot")
    fake_openai.responder = scripted([3])
    args = ["action", "--model", "openai/fake", "--votes", "3"]
    first = CliRunner().invoke(cli, args, env=env)
    assert first.exit_code == 0, first.output
    fake_github.edit_issue(REPO, 3, body="parse('') raises KeyError; expected ValueError.")
    fake_openai.responder = scripted([0])
    second = CliRunner().invoke(cli, args, env=env)
    assert second.exit_code == 0, second.output
    out = json.loads(second.stdout)
    assert out["done"]["comment"]["action"] == "edited" and out["done"]["labels"]["removed"] == [
        "clarity: underspecified"
    ]
    comments = fake_github.issue_comments(REPO, 3)
    assert [c["user"]["login"] for c in comments] == ["release-bot"]
    assert fake_github.label_names(REPO, 3) == ["clarity: well-specified"]


def test_action_dry_run_writes_nothing(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    env = _env(fake_github, fake_openai, tmp_path)
    result = CliRunner().invoke(cli, ["action", "--model", "openai/fake", "--dry-run"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["done"]["comment"]["action"] == "planned"
    assert fake_github.writes == []


def test_action_exits_non_zero_when_the_api_fails(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.fail_next(500, times=1000)
    env = {**os.environ, **_env(fake_github, fake_openai, tmp_path), "SPICE_MODEL": "openai/fake"}
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "spice"), "action"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "GitHub API error 500" in proc.stderr
    assert json.loads(proc.stdout)["failure"]["message"]
    assert fake_github.writes == [] and fake_openai.requests == []


def test_action_refuses_to_run_without_the_workflow_environment(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["action"], env={"GITHUB_EVENT_NAME": ""})
    assert result.exit_code == 2 and "GITHUB_EVENT_NAME is not set" in result.output


def test_action_yml_runs_spice_action_with_the_documented_inputs() -> None:
    spec = yaml.safe_load((ROOT / "action.yml").read_text())
    assert {"model", "api-key", "api-base", "votes", "dry-run", "bot-login"} <= set(spec["inputs"])
    assert "json" in spec["outputs"] and spec["runs"]["using"] == "composite"
    script = "\n".join(step.get("run", "") for step in spec["runs"]["steps"])
    assert "spice action" in script


def test_a_pull_request_from_a_fork_is_skipped_with_a_notice(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_github.add_pull(REPO, 3, "Fix the crash", "Fixes #1")
    env = _env(fake_github, fake_openai, tmp_path, event="pull_request")
    event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text())
    event["pull_request"]["head"]["repo"]["full_name"] = "stranger/widgets"
    Path(env["GITHUB_EVENT_PATH"]).write_text(json.dumps(event))
    result = CliRunner().invoke(cli, ["action", "--model", "openai/fake"], env=env)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("::notice title=SPICE Triage skipped::")
    assert "stranger/widgets" in result.stdout
    assert json.loads((tmp_path / "output").read_text().splitlines()[1])["skipped"]
    assert fake_github.writes == [] and fake_openai.requests == []

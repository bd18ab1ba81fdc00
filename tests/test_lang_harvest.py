"""The benchmark builder's path as the README prints it (harvest → export → validate →
test-strength → export) on repositories beyond Python, through the fake GitHub and the real
sandbox."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_server import FakeGitHub
from tests.fakes.sample_project import merged_pull
from tests.lang_projects import project_instance, registry_problem

DATA = Path(__file__).parent / "data"


def _dashboard_shows(env: dict[str, str], instance_id: str, language: str) -> None:
    """The dashboard's row of the instance, from what `validate --store` wrote."""
    from app.settings import Settings
    from app.store.engine import database_url, make_engine, session_factory
    from app.web.dashboard.queries import instances_of
    from app.web.dashboard.views import instance_row

    settings = Settings(data_dir=Path(env["SPICE_DATA_DIR"]))
    with session_factory(make_engine(database_url(settings)))() as session:
        [row] = [r for r in instances_of(session, "octo/lang") if r.instance_id == instance_id]
    shown = instance_row(row, "https://github.com")
    assert (shown.status, shown.language, shown.reason) == ("valid", language, "")
    assert shown.fail_to_pass and shown.fail_to_pass >= 1


def _spice(env: dict[str, str], *args: str) -> str:
    done = CliRunner().invoke(cli, list(args), env=env)
    assert done.exit_code == 0, done.output
    return done.stdout


@pytest.mark.parametrize(
    ("project", "test_id"),
    [
        ("lang_go/calc", "example.com/calc/mathx::TestAdd"),
        ("lang_js/calc", "test/add.test.js::add adds two numbers"),
    ],
)
def test_a_repository_is_harvested_validated_measured_and_exported(
    tmp_path: Path, project: str, test_id: str
) -> None:
    if why := Bubblewrap().problem(tmp_path) or registry_problem("registry.npmjs.org"):
        pytest.skip(f"cannot run here: {why}")
    repo = tmp_path / "git" / "octo" / "lang.git"
    row = project_instance(DATA / project, repo, "octo/lang")
    with FakeGitHub() as gh:
        gh.add_repo("octo/lang", "main")
        gh.use_git_repo("octo/lang", repo)
        merged_pull(gh, "octo/lang", 10, row)
        env = {
            "SPICE_GITHUB_API_URL": gh.base_url,
            "SPICE_GITHUB_TOKEN": gh.bot_token,
            "SPICE_GIT_BASE_URL": (tmp_path / "git").as_uri(),
            "SPICE_DATA_DIR": str(tmp_path / "data"),
        }
        _spice(env, "harvest", "octo/lang", "--no-label")
    harvested, validated = tmp_path / "harvested.jsonl", tmp_path / "validated.jsonl"
    strength, tasks = tmp_path / "strength.jsonl", tmp_path / "tasks.jsonl"
    _spice(env, "export", "--include-unvalidated", "--out", str(harvested))
    [found] = [json.loads(line) for line in harvested.read_text().splitlines()]
    assert found["test_patch"] and found["patch"]  # the gold/test split of the PR's files
    _spice(env, "validate", str(harvested), "--out", str(validated), "--store")
    [checked] = [json.loads(line) for line in validated.read_text().splitlines()]
    record = checked["spice"]["validation"]
    assert record["status"] == "valid", record["detail"]
    assert test_id in json.loads(checked["FAIL_TO_PASS"])
    _dashboard_shows(env, checked["instance_id"], record["language"])
    logs = tmp_path / "strength-logs"
    _spice(
        env, "test-strength", str(validated), "--out", str(strength), "--store", "--logs", str(logs)
    )
    [measured] = [json.loads(line) for line in strength.read_text().splitlines()]
    assert list(logs.glob("*/*.log.gz"))  # every run's log, kept when asked
    got = measured["spice"]["test_strength"]
    assert got["status"] == "measured", got["detail"]
    assert got["mutants_tried"] >= 1 and all(m["killed_by"] for m in got["mutants"])
    _spice(env, "export", "--out", str(tasks))
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert test_id in json.loads(task["FAIL_TO_PASS"])
    assert shlex.join(record["test_command"]) in task["eval_script"]
    assert task["log_parser"] == f"spice_{record['language']}"

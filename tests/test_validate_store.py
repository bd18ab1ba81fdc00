"""The benchmark builder's path through the store, every row written by the real pipeline:
`spice harvest` against the fake GitHub records the instance, `export --include-unvalidated`
writes it, `spice validate --store` runs it (in the sandbox) and keeps the result on the
instance, and a plain `spice export` then writes it as a validated task; `spice test-strength --store`
adds `spice.test_strength` to it, and the dashboard's dataset section shows its score."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from fastapi.testclient import TestClient

from app.settings import Settings
from app.web.app import create_app
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_server import FakeGitHub
from tests.sandbox_attack import SPICE
from tests.validation_support import calc_repo_fixture, merged_pull, sandbox_fixture  # noqa: F401

REPO = "octo/calc"
OPERATOR = "operator-token-for-the-dashboard"


def test_harvest_validate_store_then_export_gives_validated_tasks(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]], sandbox: Bubblewrap
) -> None:
    repo, row = calc_repo
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SPICE_DATA_DIR": str(tmp_path / "d")}
    env["PYENV_ROOT"] = str(Path.home() / ".pyenv")

    def spice(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([SPICE, *args], env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done

    harvested, validated, tasks = (tmp_path / n for n in ("h.jsonl", "v.jsonl", "t.jsonl"))
    with FakeGitHub() as gh:
        gh.add_repo(REPO, "main")
        merged_pull(gh, REPO, 10, row)
        env |= {"SPICE_GITHUB_API_URL": gh.base_url, "SPICE_GITHUB_TOKEN": gh.bot_token}
        spice("harvest", REPO, "--no-label")
    spice("export", "--include-unvalidated", "--out", str(harvested))
    [instance] = [json.loads(line) for line in harvested.read_text().splitlines()]
    assert instance["instance_id"] == "octo__calc-10"
    spice("export", "--out", str(tasks))
    assert tasks.read_text() == ""  # nothing validated yet
    spice(
        "validate", str(harvested), "--repo", f"{REPO}={repo}", "--out", str(validated), "--store"
    )
    spice("export", "--out", str(tasks))
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    assert json.loads(task["FAIL_TO_PASS"]) == ["tests/test_calc.py::test_add"]
    assert json.loads(task["PASS_TO_PASS"]) == ["tests/test_calc.py::test_mul"]
    assert task["spice"]["validation"]["status"] == "valid"
    assert task["spice"]["test_strength"] is None
    # The builder's strength of the validated instance, kept for the export as well.
    strength = tmp_path / "s.jsonl"
    spice(
        "test-strength",
        str(validated),
        "--repo",
        f"{REPO}={repo}",
        "--out",
        str(strength),
        "--store",
    )
    spice("export", "--out", str(tasks))
    [task] = [json.loads(line) for line in tasks.read_text().splitlines()]
    measured = task["spice"]["test_strength"]
    assert measured["status"] == "measured" and measured["mutants_tried"] >= 2
    assert measured["score"] == 1.0 and measured["mutants_killed"] == measured["mutants_tried"]
    # The dashboard reads the same rows: the instance's strength in its dataset table.
    settings = Settings(
        data_dir=tmp_path / "d", dashboard_token=OPERATOR, webhook_secret="not-used-here"
    )
    with TestClient(create_app(settings)) as client:
        client.post("/dashboard/login", data={"token": OPERATOR})
        page = client.get(f"/dashboard/repos/{REPO}")
    tried = measured["mutants_tried"]
    assert page.status_code == 200
    assert f'data-testid="strength">1.00 ({tried}/{tried})</td>' in page.text

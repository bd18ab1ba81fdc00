"""The App's harvest in languages beyond Python: `spice harvest --enqueue` against the fake
GitHub, then a real `spice worker` process builds each instance and validates it in its own
language, as `spice validate` would (the App's workers once validated every row as Python)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.settings import Settings
from spice_engine.langs.base import ToolchainMissing
from spice_engine.langs.rust import machine_rust
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_server import FakeGitHub
from tests.fakes.sample_project import merged_pull
from tests.harvest_support import store_at
from tests.lang_projects import patched_project, project_instance

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
WANTED = {
    "octo/go": ("go", "example.com/calc/mathx::TestAdd"),
    "octo/rust": ("rust", "tests/sums.rs::sum_of_mixed_signs"),
}


def _validations(data: Path) -> dict[str, dict[str, object]]:
    """Each stored instance's validation, by repository (none yet: absent)."""
    store = store_at(f"sqlite:///{data / 'spice.db'}")
    found = {}
    for stored in store.instances():
        validation = (stored.labels or {}).get("validation")
        if validation:
            found[str(stored.instance["repo"])] = validation
    return found


@pytest.mark.timeout(1500)
def test_a_harvest_run_by_the_app_validates_each_instance_in_its_language(
    tmp_path: Path,
) -> None:
    if why := Bubblewrap().problem(tmp_path):
        pytest.skip(f"bubblewrap cannot run here: {why}")
    try:
        machine_rust()
    except ToolchainMissing as exc:
        pytest.skip(str(exc))
    git, data = tmp_path / "git", tmp_path / "data"
    rows = {
        "octo/go": project_instance(DATA / "lang_go" / "calc", git / "octo" / "go.git", "octo/go"),
        "octo/rust": patched_project(DATA / "lang_rust", git / "octo" / "rust.git", "octo/rust"),
    }
    with FakeGitHub() as gh:
        env = {
            "SPICE_GITHUB_API_URL": gh.base_url,
            "SPICE_GITHUB_TOKEN": gh.bot_token,
            "SPICE_GIT_BASE_URL": git.as_uri(),
            "SPICE_DATA_DIR": str(data),
        }
        for repo, row in rows.items():
            gh.add_repo(repo, "main")
            gh.use_git_repo(repo, git / f"{repo}.git")
            merged_pull(gh, repo, 10, row)
            done = CliRunner().invoke(cli, ["harvest", repo, "--enqueue", "--no-label"], env=env)
            assert done.exit_code == 0, done.output
        log = tmp_path / "worker.log"
        worker_env = os.environ | env | {"PYTHONPATH": str(ROOT)}
        worker_env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        spice = str(Path(sys.executable).parent / "spice")
        with log.open("wb") as stderr:
            worker = subprocess.Popen(
                [spice, "worker", "--threads", "2"],
                cwd=ROOT,
                env=worker_env,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        try:
            deadline = time.monotonic() + 1400
            while len(found := _validations(data)) < len(rows):
                assert worker.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(2)
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    assert Settings(data_dir=data).live_validation
    for repo, (language, test_id) in WANTED.items():
        validation = found[repo]
        assert validation["status"] == "valid", validation.get("detail")
        assert validation["language"] == language
        assert test_id in json.loads(str(validation["fields"]["FAIL_TO_PASS"]))

"""The attack repository through the App's own path: a signed `pull_request.closed` (merged)
delivery -> the worker harvests the instance -> the validation task runs its tests in the
sandbox. Nothing of the App's gets out, the job ends with a status, the worker goes on. Without
a sandbox the App does not execute the repository at all, and says why."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.harvest.validation_task import register_validation_task
from app.sandboxing import sandbox_problem
from app.store.engine import database_url
from app.web.app import create_app
from spice_engine.validate.bubblewrap import Bubblewrap
from tests.fakes.github_fixtures import REPO, fake_github_fixture, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import store_at
from tests.sandbox_attack import CANARIES, Scene, attack_repo, leaked, loot, probes
from tests.service.deliveries import SECRET
from tests.service.github_app import LiveApp, app_settings
from tests.service.github_worker_handler import make_handler
from tests.service.stack import build_stack
from tests.validation_support import merged_pull, sandbox_fixture  # noqa: F401

PR = 10


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Scene]:
    made = Scene.make(tmp_path)
    for name, value in CANARIES.items():  # the worker's own environment holds its secrets
        monkeypatch.setenv(name, value)
    yield made
    made.close()


def _app(scene: Scene, gh: FakeGitHub, model: FakeOpenAI, **extra: Any) -> Iterator[LiveApp]:
    mirror = scene.root / "mirror"
    limits = {"sandbox_processes": 256, "sandbox_file_mb": 64, "sandbox_tmp_mb": 64}
    config = app_settings(
        scene.data, gh, model, git_base_url=f"file://{mirror}", votes=1, **(limits | extra)
    )
    enqueue: list[Any] = []
    handler = make_handler(config, on_instance_saved=lambda iid: enqueue[0](iid))
    with TestClient(create_app(config)) as client:
        live = LiveApp(client, build_stack(config, runner_handler=handler), gh, model)
        enqueue.append(register_validation_task(live.stack.queue.huey, config))
        yield live


def _seed(scene: Scene, gh: FakeGitHub) -> dict[str, str]:
    mirror = scene.data / "repos" / f"{REPO.replace('/', '+')}.git"
    repo, row = attack_repo(scene.root, scene.targets(mirror=mirror))
    bare = scene.root / "mirror" / f"{REPO}.git"
    bare.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    merged_pull(gh, REPO, PR, row)
    return row


def test_a_merged_attack_is_validated_in_the_sandbox_and_nothing_gets_out(
    scene: Scene, fake_github: FakeGitHub, fake_openai: FakeOpenAI, sandbox: Bubblewrap
) -> None:
    _seed(scene, fake_github)
    fake_openai.responder = scripted([1, 2, 1])
    for live in _app(scene, fake_github, fake_openai):
        ran = live.deliver("pull_request", "closed", REPO, PR)
        assert ran == 2  # the merge's job, then the validation it enqueued
        assert live.job(f"{REPO}#{PR}/merged").state == "done"
        [stored] = store_at(database_url(live.stack.settings)).instances()
        validation = stored.labels["validation"]
        assert validation["status"] == "valid", validation
        fields = validation["fields"]
        seen = probes(fields)
        assert seen and seen["tests:read_database"] == seen["tests:read_worker_ssh"] == "blocked"
        assert {v for k, v in seen.items() if "connect_" in k} == {"blocked"}
        assert seen["tests:fork_bomb"] == seen["tests:fill_disk"] == "limited"
        secrets = [SECRET.decode(), "sk-test-model-key-123", fake_github.bot_token]
        found = loot(fields, validation["logs"])
        assert leaked(found) == [] and not [s for s in secrets if s in found]
        assert scene.lingering() == [] and scene.planted() == []
        assert all(lst.connections == 0 for lst in scene.listeners.values())
        assert "tests/test_victim.py::test_add" in str(fields["FAIL_TO_PASS"])
        # The worker goes on: a later delivery is handled as usual.
        fake_github.add_issue(REPO, 30, "Crash", "`parse('')` raises KeyError.")
        fake_openai.responder = scripted([2, 3, 3])
        live.deliver("issues", "opened", REPO, 30)
        assert live.job(f"{REPO}#30").state == "done"


def test_without_a_sandbox_the_app_runs_nothing_and_says_why(
    scene: Scene, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    _seed(scene, fake_github)
    fake_openai.responder = scripted([1, 2, 1])
    missing = str(scene.root / "no-bwrap")
    token = "operator-token-for-the-dashboard-0123"
    for live in _app(scene, fake_github, fake_openai, bwrap_path=missing, dashboard_token=token):
        assert sandbox_problem(live.stack.settings)
        health = live.client.get("/healthz").json()
        assert health["validation"].startswith("off: live validation is off: no sandbox")
        live.deliver("pull_request", "closed", REPO, PR)
        [stored] = store_at(database_url(live.stack.settings)).instances()
        validation = stored.labels["validation"]
        assert validation["status"] == "sandbox_unavailable"
        assert "no-bwrap not found" in validation["detail"]
        assert probes(validation.get("fields") or {}) == {}  # its code never ran
        assert not (scene.root / "attack" / ".attack-tests.json").exists()
        page = live.client.get(
            f"/dashboard/repos/{REPO}", headers={"Authorization": f"Bearer {token}"}
        )
        assert page.status_code == 200
        assert "Instances are not validated here: live validation is off" in page.text
        assert "sandbox_unavailable" in page.text

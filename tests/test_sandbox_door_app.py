"""The door attack through the App (issue 34), as the worker runs it (umask 077, its data
directory private): a merged pull request is validated by the worker (serve + queue + the
validation task), and an open one with execution opted in is measured and commented on (serve + worker both). The
tree's git, links and forged verdicts reach nothing of the host's; the comment says what the
honest run found, and no secret of the App's is in it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.harvest.validation_task import register_validation_task
from app.store.engine import database_url
from app.store.private_files import make_private
from app.web.app import create_app
from tests.door_attack import Door, attacking, door_repo, secrets_in
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    scripted,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import store_at
from tests.sandbox_attack import CANARIES
from tests.service.deliveries import SECRET
from tests.service.github_app import LiveApp, app_settings
from tests.service.github_worker_handler import make_handler
from tests.service.stack import build_stack
from tests.validation_support import hunks, merged_pull, sandbox_fixture  # noqa: F401

PR = 12


@pytest.fixture
def worker_like(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Door]:
    """The door repository, and this process made like the worker: its secrets in the
    environment, umask 077 and a private data directory (`make_private`)."""
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    door = door_repo(tmp_path / "door")
    old = os.umask(0o022)
    try:
        make_private(tmp_path / "door" / "data")
        yield door
    finally:
        os.umask(old)


def _mirror(door: Door) -> Path:
    mirror = door.root / "mirror"
    bare = mirror / f"{REPO}.git"
    bare.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(door.repo), str(bare)], check=True)
    return mirror


def _comments_and_logs(door: Door) -> str:
    found = [p.read_text(errors="replace") for p in (door.root / "data").rglob("*.json")]
    return "\n".join(found)


def test_a_merged_attack_is_validated_by_the_worker_and_the_host_stays_clean(
    worker_like: Door, fake_github: FakeGitHub, fake_openai: FakeOpenAI, sandbox: Any
) -> None:
    door = worker_like
    row = attacking(door, "git", "results", "forge", "source")
    mirror = _mirror(door)
    merged_pull(fake_github, REPO, PR, row)
    fake_openai.responder = scripted([1, 2, 1])
    config = app_settings(
        door.root / "data", fake_github, fake_openai, git_base_url=f"file://{mirror}", votes=1
    )
    enqueue: list[Any] = []
    handler = make_handler(config, on_instance_saved=lambda iid: enqueue[0](iid))
    with TestClient(create_app(config)) as client:
        live = LiveApp(
            client, build_stack(config, runner_handler=handler), fake_github, fake_openai
        )
        enqueue.append(register_validation_task(live.stack.queue.huey, config))
        assert client.get("/healthz").json()["validation"] == "on"
        assert live.deliver("pull_request", "closed", REPO, PR) == 2
        [stored] = store_at(database_url(live.stack.settings)).instances()
    validation = stored.labels["validation"]
    assert validation["status"] == "valid", validation.get("detail")
    assert "tests/test_victim.py::test_add" in str(validation["fields"]["FAIL_TO_PASS"])
    assert door.untouched() == []
    secrets = [SECRET.decode(), "sk-test-model-key-123", fake_github.bot_token]
    said = json.dumps(stored.labels) + _comments_and_logs(door)
    assert secrets_in(said) == [] and not [s for s in secrets if s in said]


def test_an_open_attack_is_measured_honestly_and_the_comment_leaks_nothing(
    worker_like: Door, fake_github: FakeGitHub, fake_openai: FakeOpenAI, sandbox: Any
) -> None:
    door = worker_like
    row = attacking(door, "source", "results", "forge", "git")
    mirror = _mirror(door)
    fake_github.put_file(REPO, ".github/spice.yml", "execute_tests: true\n")
    files = hunks(row["patch"]) | hunks(row["test_patch"])
    fake_github.add_pull(
        REPO,
        PR,
        "Fix add",
        "add() returned b",
        files=[{"filename": path, "patch": hunk} for path, hunk in files.items()],
        base_sha=row["base_commit"],
        head_sha="d" * 40,
    )
    fake_openai.responder = scripted([2, 2])
    config = app_settings(
        door.root / "data",
        fake_github,
        fake_openai,
        git_base_url=f"file://{mirror}",
        votes=1,
        execute_pull_requests=True,
    )
    with TestClient(create_app(config)) as client:
        live = LiveApp(
            client,
            build_stack(config, runner_handler=make_handler(config)),
            fake_github,
            fake_openai,
        )
        assert live.deliver("pull_request", "opened", REPO, PR) == 1
        assert live.job(f"{REPO}#{PR}").state == "done"
    body = fake_github.issue_comments(REPO, PR)[0]["body"]
    # The honest figures: the weak test lets `a - b` through (1 of 2), not a forged "all caught".
    assert "1 of 2 mutants of the fix survive" in body, body
    assert "as the PR's own tests report it" in body
    assert "+    return a - b" in body
    assert door.untouched() == []
    assert secrets_in(body + _comments_and_logs(door)) == []
    assert "sk-test-model-key-123" not in body and fake_github.bot_token not in body

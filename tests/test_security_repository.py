"""A repository cannot steer the App: its config picks only operator-allowed models, votes and
caps only go down, and its files are read as data (no link, `..` or special file followed)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.github.repo_config import RepoConfig
from app.github.sessions import session_factory
from app.handlers.delivery_handler import handler_for, store_lookup
from app.handlers.deps import HandlerDeps
from app.model_policy import choose
from app.settings import Settings
from app.store.engine import database_url, make_engine
from app.store.engine import session_factory as store_sessions
from app.web.app import create_app
from spice_engine.llm.litellm_chat import LiteLLMChat
from spice_engine.pr.checkout import CheckoutConfig, CheckoutManager
from spice_engine.pr.repo_files import read_regular, safe_relative, tracked_regular_files
from tests.fakes.github_fixtures import (  # noqa: F401
    FAST_RETRIES,
    REPO,
    fake_github_fixture,
    payload,
    scripted,
    settings_for,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.service.deliveries import signed_headers
from tests.service.stack import build_stack, run_ready_tasks

CANARY = "CANARY-secret-0f3e9d"


class CaptureServer:
    """An attacker's server on 127.0.0.1: records every request it is sent."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, bytes]] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                seen.append((self.command, self.path, self.rfile.read(length)))
                self.send_response(500)
                self.end_headers()

            do_GET = do_POST = _record

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def capture() -> Iterator[CaptureServer]:
    server = CaptureServer()
    yield server
    server.close()


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
        },
    ).stdout


def hostile_repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose `pkg/settings.py` links to a secret outside it, and to the
    process environment, and whose `pkg/core.py` is ordinary code."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"API_KEY={CANARY}\n")
    root = tmp_path / "origin"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("def run(value):\n    return value + 1\n")
    (root / "pkg" / "settings.py").symlink_to(outside / "secret.txt")
    (root / "pkg" / "environ.py").symlink_to("/proc/self/environ")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root, git(root, "rev-parse", "HEAD").strip()


PR_FILES = [
    {"filename": name, "patch": "@@ -1,1 +1,1 @@\n-def run(value):\n+def run(value=0):"}
    for name in ("pkg/core.py", "pkg/settings.py", "pkg/environ.py", "../outside/secret.txt")
]


def test_a_hostile_repository_gets_no_secret_and_no_request_out_through_the_app(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI, capture: CaptureServer
) -> None:
    origin, base = hostile_repo(tmp_path)
    fake_github.use_git_repo(REPO, origin)
    fake_github.put_file(
        REPO,
        ".github/spice.yml",
        f"models:\n  pull_requests: oobabooga/{capture.url}\n  issues: openai/x\n"
        "votes: 9\ncost_cap_usd: 100\n",
    )
    fake_github.add_pull(REPO, 10, "Default value", "", files=PR_FILES, base_sha=base)
    config = settings_for(
        fake_github, fake_openai, data_dir=tmp_path / "data", webhook_secret="s3cret-webhook"
    )
    deps = HandlerDeps(
        settings=config,
        github=session_factory(config, FAST_RETRIES),
        chat=lambda model: LiteLLMChat(config.model_config_for(model)),
        checkouts=CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "checkouts")),
        retry_policy=FAST_RETRIES,
        assessed_before=store_lookup(store_sessions(make_engine(database_url(config)))),
    )
    fake_openai.responder = scripted(lambda _request: [1, 1, 1])
    body = json.dumps(payload(fake_github, "pull_request", "opened", REPO, 10)).encode()
    headers = signed_headers(body, "pull_request", "hostile-1", b"s3cret-webhook")
    with TestClient(create_app(config)) as client:
        assert client.post("/webhook", content=body, headers=headers).status_code == 202
        stack = build_stack(config, runner_handler=handler_for(deps))
        assert run_ready_tasks(stack.queue) == 1
    assert stack.job(f"{REPO}#10").state == "done"

    assert capture.requests == []  # nothing went anywhere but the operator's api_base
    environment = Path("/proc/self/environ").read_bytes().split(b"\0")
    leaks = [v for v in environment if len(v) > 24]
    assert fake_openai.requests, "the operator's model was asked"
    for request in fake_openai.requests:
        text = json.dumps(request)
        assert request["model"] == "fake" and request.get("n", 1) <= 3  # operator's votes
        assert CANARY not in text
        assert not [v for v in leaks if v.decode(errors="replace") in text]
    prompt = json.dumps(fake_openai.requests[0])
    assert "def run(value):" in prompt  # the ordinary file was read at the base
    comment = fake_github.issue_comments(REPO, 10)[0]["body"]
    assert "does not allow" in comment and capture.url not in comment


def test_repository_config_only_lowers_the_operators_limits() -> None:
    operator = Settings(model="gpt-4o-mini", votes=3, cost_cap_usd=0.05, test_mode=True)
    greedy = RepoConfig.model_validate(
        {"votes": 9, "cost_cap_usd": 100, "models": {"issues": "gpt-4o"}}
    )
    choice = choose(operator, greedy, "issues")
    assert (choice.model, choice.votes, choice.cost_cap_usd) == ("gpt-4o-mini", 3, 0.05)
    assert "`votes: 9` is more than this App's operator allows; 3 votes were taken" in (
        choice.warnings
    )
    assert choice.warnings and "gpt-4o`" not in choice.warnings[0]
    modest = RepoConfig.model_validate({"votes": 1, "cost_cap_usd": 0.01})
    assert (
        choose(operator, modest, "issues").votes,
        choose(operator, modest, "issues").cost_cap_usd,
    ) == (1, 0.01)
    uncapped = Settings(model="m", test_mode=True)
    assert choose(uncapped, modest, "pull_requests").cost_cap_usd == 0.01


def test_the_operator_lists_the_models_a_repository_may_pick(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPICE_ALLOWED_MODELS", "gpt-4o-mini, gpt-4o")
    operator = Settings(model="gpt-4o-mini", test_mode=True)
    assert operator.models_allowed() == ["gpt-4o-mini", "gpt-4o"]
    picked = choose(operator, RepoConfig.model_validate({"models": {"issues": "gpt-4o"}}), "issues")
    assert picked.model == "gpt-4o" and picked.warnings == []
    monkeypatch.setenv("SPICE_ALLOWED_MODELS", '["a/b"]')
    assert Settings(model="m", test_mode=True).models_allowed() == ["a/b"]
    monkeypatch.delenv("SPICE_ALLOWED_MODELS")
    assert Settings(model="m", test_mode=True).models_allowed() == ["m"]


def test_files_are_read_as_data_never_through_a_link(tmp_path: Path) -> None:
    root, _ = hostile_repo(tmp_path)
    (root / "big.py").write_text("x = 1\n" * 300_000)
    os.mkfifo(root / "pipe.py")
    (root / "linked_dir").symlink_to(tmp_path / "outside")
    assert read_regular(root, "pkg/core.py") == "def run(value):\n    return value + 1\n"
    for path in (
        "pkg/settings.py",
        "pkg/environ.py",
        "../outside/secret.txt",
        "linked_dir/secret.txt",
        "/etc/hostname",
        "pipe.py",  # a FIFO would block a reader for ever
        "big.py",
        ".git/config",
    ):
        assert read_regular(root, path) is None, path
    assert not safe_relative("a/../b") and not safe_relative("./a") and safe_relative("a/b.py")


def test_only_tracked_regular_files_are_candidates(tmp_path: Path) -> None:
    root, base = hostile_repo(tmp_path)
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{base},vendored")
    git(root, "commit", "-qm", "submodule")
    (root / "untracked.py").write_text("x = 1\n")
    assert tracked_regular_files(root) == {
        "pkg/core.py": len("def run(value):\n    return value + 1\n")
    }
    assert tracked_regular_files(tmp_path / "outside") == {}  # not a repository


def test_a_clone_runs_no_hook_and_checks_links_out_as_text(tmp_path: Path) -> None:
    origin, base = hostile_repo(tmp_path)
    manager = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "cache"))
    with manager.checkout("acme/hostile", str(origin), base) as path:
        settings_file = path / "pkg" / "settings.py"
        assert not settings_file.is_symlink()
        assert CANARY not in settings_file.read_text()  # the link's target path, as text
        config = (path / ".git" / "config").read_text()
        assert "hookspath = /dev/null" in config and "symlinks = false" in config

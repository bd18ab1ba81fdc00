"""A model provider's error that echoes the credential it was sent reaches neither the logs
nor the stored job error nor GitHub."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.logging_setup import configure_logging
from app.redaction import secret_values
from app.settings import Settings
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.service.deliveries import SECRET
from tests.service.github_worker_handler import make_handler
from tests.service.stack import build_stack, run_ready_tasks

# Shaped like no known key: only the configured-secret redaction can catch it.
CREDENTIAL = "plain-credential-7731-zebra"


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_an_echoed_model_key_is_redacted_in_logs_and_job_errors(
    tmp_path: Path,
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    restore_logging: None,
) -> None:
    config = Settings(
        data_dir=tmp_path,
        webhook_secret=SECRET.decode(),
        model="openai/fake",
        api_base=fake_openai.api_base,
        api_key=CREDENTIAL,
        output_mode="json_object",
        max_attempts=1,
        github_api_url=fake_github.base_url,
        github_token=fake_github.bot_token,
        bot_login=fake_github.bot_login,
    )

    def echo_key(_request: dict[str, Any]) -> Reply:
        return Reply(status=401, error=f"Incorrect API key provided: {CREDENTIAL}.")

    fake_openai.responder = echo_key
    configure_logging("INFO", "text", secret_values(config))
    fake_github.add_issue(REPO, 4, "Crash on empty input", "`parse('')` raises KeyError.")
    stack = build_stack(config, runner_handler=make_handler(config))
    stack.deliver(payload(fake_github, "issues", "opened", REPO, 4), delivery_id="r1")
    run_ready_tasks(stack.queue)

    assert len(fake_openai.requests) >= 1  # the provider did answer with the echo
    job = stack.job(f"{REPO}#4")
    assert job.error is not None and "AuthenticationError" in job.error
    assert CREDENTIAL not in job.error and "[redacted]" in job.error
    logged = capsys.readouterr().err
    assert "job error" in logged and CREDENTIAL not in logged
    for comment in fake_github.issue_comments(REPO, 4):
        assert CREDENTIAL not in comment["body"]

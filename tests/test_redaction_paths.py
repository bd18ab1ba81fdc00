"""A model provider's error that echoes the credential it was sent reaches neither the logs
nor the stored job error nor GitHub; nor does any piece of the App's configured private key."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from app.logging_setup import configure_logging
from app.redaction import redact, secret_values
from app.settings import Settings
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.service.deliveries import SECRET
from tests.service.github_worker_handler import make_handler
from tests.service.stack import build_stack, run_ready_tasks

# Shaped like no known key: only the configured-secret redaction can catch it.
CREDENTIAL = "plain-credential-7731-zebra"


@pytest.fixture(scope="module")
def app_key() -> str:
    """A real PEM private key, as an App's key file holds it."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()


def body_lines(pem: str) -> list[str]:
    return [line for line in pem.splitlines() if not line.startswith("-----")]


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.parametrize("echoed", ["model key", "a line of the App's key"])
def test_an_echoed_secret_is_redacted_in_logs_and_job_errors(
    echoed: str,
    app_key: str,
    tmp_path: Path,
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    restore_logging: None,
) -> None:
    leaked = CREDENTIAL if echoed == "model key" else body_lines(app_key)[3]
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
        github_private_key=app_key,
    )

    def echo_key(_request: dict[str, Any]) -> Reply:
        return Reply(status=401, error=f"Incorrect API key provided: {leaked}.")

    fake_openai.responder = echo_key
    configure_logging("INFO", "text", secret_values(config))
    fake_github.add_issue(REPO, 4, "Crash on empty input", "`parse('')` raises KeyError.")
    stack = build_stack(config, runner_handler=make_handler(config))
    stack.deliver(payload(fake_github, "issues", "opened", REPO, 4), delivery_id="r1")
    run_ready_tasks(stack.queue)

    assert len(fake_openai.requests) >= 1  # the provider did answer with the echo
    job = stack.job(f"{REPO}#4")
    assert job.error is not None and "AuthenticationError" in job.error
    assert leaked not in job.error and "[redacted]" in job.error
    logged = capsys.readouterr().err
    assert "job error" in logged and leaked not in logged
    for comment in fake_github.issue_comments(REPO, 4):
        assert leaked not in comment["body"]


def test_every_piece_of_a_configured_pem_key_is_redacted(tmp_path: Path, app_key: str) -> None:
    key_file = tmp_path / "app.pem"
    key_file.write_text(app_key)
    lines = [line for line in body_lines(app_key) if len(line) >= 16]
    # The key as PEM text in the environment, or as the file SPICE_GITHUB_PRIVATE_KEY_PATH names.
    for config in (
        Settings(data_dir=tmp_path, github_private_key=app_key),
        Settings(data_dir=tmp_path, github_private_key_path=key_file),
    ):
        secrets = secret_values(config)
        quoted = {
            "one line": f"error: bad padding near {lines[7]} (offset 448)",
            "JSON-escaped whole key": json.dumps({"error": app_key}),
            "body on one line": f"got {''.join(body_lines(app_key))}",
            "headers cut off": "\n".join(lines[2:9]),
        }
        for how, text in quoted.items():
            cleaned = redact(text, secrets)
            assert "[redacted]" in cleaned, how
            assert not any(line in cleaned for line in lines), how
    # Ordinary text around it is left alone.
    assert redact("error: bad padding (offset 448)", secrets) == "error: bad padding (offset 448)"

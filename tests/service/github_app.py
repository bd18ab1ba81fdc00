"""The whole App against the fake GitHub for failure-shape tests: signed delivery over HTTP,
stored job, queue consumer, production handler; waits GitHub asks for are scheduled, not slept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.settings import Settings
from app.store.models import Delivery, Job
from app.web.app import create_app
from tests.fakes.github_fixtures import payload
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.service.deliveries import SECRET, signed_headers
from tests.service.github_worker_handler import make_handler
from tests.service.stack import Stack, build_stack, promote_scheduled, run_ready_tasks


def app_settings(tmp_path: Path, gh: FakeGitHub, model: FakeOpenAI, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "webhook_secret": SECRET.decode(),
        "model": "openai/fake",
        "api_base": model.api_base,
        "api_key": "sk-test-model-key-123",
        "output_mode": "json_object",
        "max_attempts": 1,
        "github_api_url": gh.base_url,
        "github_token": gh.bot_token,
        "bot_login": gh.bot_login,
        "job_retry_delay_s": 0.1,
        # Small, so a test never sits through GitHub's minute: longer waits are scheduled.
        "github_max_wait_s": 2.0,
    }
    return Settings(**(values | extra))


@dataclass
class LiveApp:
    client: TestClient
    stack: Stack
    gh: FakeGitHub
    model: FakeOpenAI
    sent: int = 0

    def deliver(self, event: str, action: str, repo: str, number: int, **extra: Any) -> int:
        """Sign and POST the delivery (202), then let the consumer run what is due."""
        body = payload(self.gh, event, action, repo, number, **extra)
        return self.post(event, body)

    def post(self, event: str, body: dict[str, Any], run: bool = True) -> int:
        """POST a signed delivery (id `d-<n>`, n counting from 1), then run what is due,
        unless `run` is False (the tasks then wait in the queue, as behind a busy worker)."""
        self.sent += 1
        raw = json.dumps(body).encode()
        answer = self.client.post(
            "/webhook", content=raw, headers=signed_headers(raw, event, f"d-{self.sent}")
        )
        assert answer.status_code == 202, answer.text
        return run_ready_tasks(self.stack.queue) if run else 0

    def run_queued(self) -> int:
        return run_ready_tasks(self.stack.queue)

    def statuses(self) -> dict[str, str]:
        """Every delivery's status, by delivery id."""
        with self.stack.sessions() as session:
            rows = session.execute(select(Delivery.delivery_id, Delivery.status)).all()
        return {delivery_id: status for delivery_id, status in rows}

    def scheduled_delays(self) -> list[float]:
        """Seconds until each scheduled retry is due (what the App asked to wait)."""
        now = datetime.now(UTC).replace(tzinfo=None)
        return [(t.eta - now).total_seconds() for t in self.stack.queue.huey.scheduled()]

    def run_scheduled(self) -> int:
        """As if the waits had passed: run the scheduled retries now."""
        promote_scheduled(self.stack.queue)
        return run_ready_tasks(self.stack.queue)

    def job(self, key: str) -> Job:
        return self.stack.job(key)


def live_app(tmp_path: Path, gh: FakeGitHub, model: FakeOpenAI, **extra: Any) -> Iterator[LiveApp]:
    config = app_settings(tmp_path, gh, model, **extra)
    with TestClient(create_app(config)) as client:
        yield LiveApp(client, build_stack(config, runner_handler=make_handler(config)), gh, model)


@pytest.fixture(name="live")
def live_fixture(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> Iterator[LiveApp]:
    yield from live_app(tmp_path, fake_github, fake_openai)

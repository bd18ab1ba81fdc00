"""The same task code on RedisHuey, and the whole intake-to-run path on PostgreSQL."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from fastapi.testclient import TestClient
from huey import RedisHuey

from app.web.app import create_app
from tests.service.backends import redis_or_skip, throwaway_postgres
from tests.service.deliveries import issue_payload, signed_headers
from tests.service.settings import service_settings
from tests.service.stack import build_stack, run_ready_tasks
from tests.service.standin_handler import FileRecordingHandler

KEY = "Codertocat/Hello-World#4"


def test_redis_queue_runs_the_same_tasks(tmp_path: Path) -> None:
    url = redis_or_skip()
    handler = FileRecordingHandler(tmp_path / "control")
    settings = service_settings(
        tmp_path, redis_url=url, queue_name=f"spice-test-{uuid.uuid4().hex}"
    )
    stack = build_stack(settings, handler)
    assert isinstance(stack.queue.huey, RedisHuey)
    try:
        assert stack.deliver(issue_payload(4), delivery_id="r1") == "queued"
        assert stack.deliver(issue_payload(4, "edited"), delivery_id="r2") == "coalesced"
        assert stack.queue.huey.pending_count() == 1
        assert run_ready_tasks(stack.queue) == 1
        assert handler.lines("effects") == ["r2"]
        assert stack.job(KEY).state == "done"
    finally:
        stack.queue.huey.storage.flush_all()


def test_webhook_to_finished_job_on_postgresql(tmp_path: Path) -> None:
    handler = FileRecordingHandler(tmp_path / "control")
    with throwaway_postgres() as database_url:
        settings = service_settings(tmp_path, database_url=database_url)
        with TestClient(create_app(settings)) as client:
            body = json.dumps(issue_payload(4)).encode()
            headers = signed_headers(body, "issues", "pg-1")
            assert client.post("/webhook", content=body, headers=headers).status_code == 202
            assert client.post("/webhook", content=body, headers=headers).status_code == 200
            health = client.get("/healthz").json()
            assert (health["status"], health["database"]) == ("ok", "ok")
        worker = build_stack(settings, handler)
        assert run_ready_tasks(worker.queue) == 1
        assert handler.lines("effects") == ["pg-1"]
        assert worker.job(KEY).state == "done"
        worker.engine.dispose()

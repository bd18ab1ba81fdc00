"""GET /healthz and GET /metrics."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from app.web.app import create_app
from spice_engine.langs import languages
from spice_engine.langs.toolchains import reachable_languages
from tests.service.deliveries import issue_payload, signed_headers
from tests.service.settings import service_settings


def test_healthz_ok(tmp_path: Path) -> None:
    with TestClient(create_app(service_settings(tmp_path))) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    report = response.json()
    assert report.pop("disk_free_mb") > 0
    # Every language, said as this process's probe says it (no host path in a reason).
    expected = {
        r.language: "ok" if r.available else f"unavailable: {r.reason}"
        for r in reachable_languages()
    }
    assert report.pop("languages") == expected and set(expected) == set(languages())
    quiet = {"failures": {}, "rate_limit_waits": {}, "rate_limit_wait_s": 0.0}
    assert report == {
        "status": "ok",
        "database": "ok",
        "disk": "ok",
        "validation": "on",
        "github": quiet,
    }


def test_healthz_reports_unreachable_database(tmp_path: Path) -> None:
    # Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    settings = service_settings(tmp_path, database_url="postgresql+psycopg://x@127.0.0.1:9/none")
    with TestClient(create_app(settings, migrate=False)) as client:
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response.json()["database"] == "unreachable"
        body = json.dumps(issue_payload(1)).encode()
        headers = signed_headers(body, "issues", "down-1")
        assert client.post("/webhook", content=body, headers=headers).status_code == 503
        metrics = client.get("/metrics")
        assert metrics.status_code == 200
        assert 'spice_errors_total{component="database"}' in metrics.text
        assert "spice_jobs{" not in metrics.text


def test_healthz_reports_a_data_disk_short_of_space(tmp_path: Path) -> None:
    settings = service_settings(tmp_path, min_free_disk_mb=1e12)  # more than any disk has
    with TestClient(create_app(settings)) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["disk"] == "low" and response.json()["database"] == "ok"


def test_metrics_count_deliveries_and_jobs(tmp_path: Path) -> None:
    with TestClient(create_app(service_settings(tmp_path))) as client:
        body = json.dumps(issue_payload(1)).encode()
        client.post("/webhook", content=body, headers=signed_headers(body, "issues", "m1"))
        client.post("/webhook", content=body, headers=signed_headers(body, "issues", "m1"))
        client.post("/webhook", content=body, headers={"X-GitHub-Event": "issues"})
        response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'spice_webhook_deliveries_total{event="issues",outcome="queued"} 1.0' in text
    assert 'spice_webhook_deliveries_total{event="issues",outcome="duplicate"} 1.0' in text
    assert 'spice_webhook_deliveries_total{event="unknown",outcome="unauthorized"} 1.0' in text
    assert 'spice_jobs{state="pending"} 1.0' in text
    assert 'spice_jobs{state="done"} 0.0' in text
    for family in ("spice_label_latency_seconds", "spice_llm_tokens", "spice_llm_cost_usd"):
        assert f"# TYPE {family}" in text

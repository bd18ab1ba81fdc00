"""The container health check fits the role: a worker is judged by its heartbeat, the web
service by /healthz (tests/test_web_serve.py runs that half against `spice serve`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from app.healthcheck import STALE_AFTER_S, heartbeat_path

ROOT = Path(__file__).resolve().parents[1]


def healthcheck(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"SPICE_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [sys.executable, "-m", "app.healthcheck", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_a_worker_is_healthy_only_with_a_fresh_heartbeat(tmp_path: Path) -> None:
    missing = healthcheck(tmp_path, "--role", "worker")
    assert missing.returncode == 1 and "no heartbeat" in missing.stdout

    beat = heartbeat_path(tmp_path)
    beat.touch()
    assert healthcheck(tmp_path, "--role", "worker").returncode == 0

    old = time.time() - STALE_AFTER_S - 5
    os.utime(beat, (old, old))
    stale = healthcheck(tmp_path, "--role", "worker")
    assert stale.returncode == 1 and "last heartbeat" in stale.stdout


def test_the_web_role_fails_when_nothing_answers(tmp_path: Path) -> None:
    done = healthcheck(tmp_path, "--role", "web", "--port", "9")
    assert done.returncode == 1 and "/healthz" in done.stdout


def test_the_web_role_checks_the_port_the_container_serves_on() -> None:
    from app.healthcheck import container_role, served_port

    assert served_port(["spice", "serve", "--host", "0.0.0.0", "--port", "9000"]) == 9000
    assert served_port(["spice", "serve", "--port=9001"]) == 9001
    assert served_port(["spice", "serve"]) is None
    gunicorn = ["python3", "-m", "gunicorn", "--bind", "0.0.0.0:9002", "--workers", "2"]
    assert served_port(gunicorn) == 9002  # what `serve` execs, as the container's process 1
    assert container_role(["spice", "worker", "--threads", "2"]) == "worker"
    assert container_role(["spice", "serve", "--port", "9000"]) == "web"

"""The container health check fits the role: a worker is judged by its heartbeat, the web
service by /healthz (tests/test_web_serve.py runs that half against `spice serve`)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.healthcheck import STALE_AFTER_S, heartbeat_path
from app.settings import Settings

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


def test_validation_is_on_exactly_when_a_jobs_tree_works_under_the_workers_umask(
    tmp_path: Path,
) -> None:
    """The probe behind `/healthz`'s validation field makes a job's tree the way jobs do, under
    the worker's umask 077, and has the sandbox's user work in it: on when that works, off with
    the reason when the data directory cannot hold a job's tree."""
    from app.sandboxing import live_validation_problem
    from app.store.private_files import make_private
    from spice_engine.validate.bubblewrap import Bubblewrap

    if why := Bubblewrap().problem():
        pytest.skip(f"no bubblewrap here: {why}")
    old = os.umask(0o022)
    try:
        make_private(tmp_path / "good")  # umask 077 and a private data directory, as the worker
        good = Settings(_env_file=None, data_dir=tmp_path / "good", webhook_secret="s")
        assert live_validation_problem(good) is None
        (tmp_path / "bad").write_text("a file where jobs make their trees")
        bad = Settings(_env_file=None, data_dir=tmp_path / "bad", webhook_secret="s")
        why = live_validation_problem(bad)
        assert why is not None and "cannot make a job's scratch directory" in why, why
    finally:
        os.umask(old)

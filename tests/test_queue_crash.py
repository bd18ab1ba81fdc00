"""A consumer killed with SIGKILL mid-job: after a restart the job completes exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.service.deliveries import SECRET, issue_payload
from tests.service.settings import service_settings
from tests.service.stack import build_stack
from tests.service.standin_handler import CONTROL_ENV, FileRecordingHandler

ROOT = Path(__file__).resolve().parents[1]
LEASE_S = 1.0


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    env = os.environ | {
        "SPICE_DATA_DIR": str(tmp_path),
        "SPICE_WEBHOOK_SECRET": SECRET.decode(),
        "SPICE_JOB_LEASE_S": str(LEASE_S),
        CONTROL_ENV: str(tmp_path / "control"),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)

    def start() -> subprocess.Popen[bytes]:
        handler = "tests.service.standin_handler:make_handler"
        process = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "spice"),
                "worker",
                "--threads",
                "1",
                "--handler",
                handler,
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(tmp_path / f"worker{len(started)}.log", "wb"),  # noqa: SIM115
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def test_sigkill_mid_job_then_restart_completes_once(
    tmp_path: Path, start_worker: Callable[[], subprocess.Popen[bytes]]
) -> None:
    settings = service_settings(tmp_path, job_lease_s=LEASE_S)
    stack = build_stack(settings)  # this process only enqueues, like the web app
    handler = FileRecordingHandler(tmp_path / "control")
    (handler.control / "block").touch()
    key = "Codertocat/Hello-World#9"
    assert stack.deliver(issue_payload(9), delivery_id="d1") == "queued"

    first = start_worker()
    wait_for(lambda: handler.lines("starts") == ["d1"], 60, "the first worker to start the job")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    assert stack.job(key).state == "running"
    assert handler.lines("effects") == []

    (handler.control / "release").touch()
    time.sleep(LEASE_S)  # the dead run's lease runs out
    second = start_worker()
    wait_for(lambda: stack.job(key).state == "done", 60, "the restarted worker to finish")
    time.sleep(0.3)  # give a (wrong) duplicate run the chance to show up
    second.send_signal(signal.SIGINT)
    second.wait(timeout=20)

    assert handler.lines("starts") == ["d1", "d1"]
    assert handler.lines("effects") == ["d1"]
    job = stack.job(key)
    assert (job.state, job.attempts) == ("done", 2)
    assert stack.queue.huey.pending_count() == 0

"""A consumer killed with SIGKILL mid-job: after a restart the job completes exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.store.assessments import assessments_for
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.service.deliveries import SECRET, issue_payload
from tests.service.settings import service_settings
from tests.service.stack import build_stack
from tests.service.standin_handler import CONTROL_ENV, FileRecordingHandler

ROOT = Path(__file__).resolve().parents[1]
LEASE_S = 1.0
GITHUB_HANDLER = "tests.service.github_worker_handler:make_handler"


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


StartWorker = Callable[..., subprocess.Popen[bytes]]
STANDIN = "tests.service.standin_handler:make_handler"


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[StartWorker]:
    started: list[subprocess.Popen[bytes]] = []
    base_env = os.environ | {
        "SPICE_DATA_DIR": str(tmp_path),
        "SPICE_WEBHOOK_SECRET": SECRET.decode(),
        "SPICE_JOB_LEASE_S": str(LEASE_S),
        CONTROL_ENV: str(tmp_path / "control"),
        "PYTHONPATH": str(ROOT),
    }
    base_env.pop("PROMETHEUS_MULTIPROC_DIR", None)

    def start(handler: str = STANDIN, **extra_env: str) -> subprocess.Popen[bytes]:
        env = base_env | extra_env
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
    tmp_path: Path, start_worker: StartWorker
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


@pytest.mark.heavy  # waits out the job's lease twice: half a minute; the mid-job SIGKILL stays
def test_sigkill_during_the_model_call_then_one_comment_on_github(
    tmp_path: Path, start_worker: StartWorker, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    """The real handlers, the fake GitHub and the fake model: killed while voting."""
    fake_github.add_issue(REPO, 3, "Crash on empty input", "parse('') raises KeyError.")
    in_flight, release = threading.Event(), threading.Event()
    answer = scripted([1])

    def responder(request: dict[str, Any]) -> Reply:
        in_flight.set()
        release.wait(60)  # the first worker dies while this request hangs
        return answer(request)

    fake_openai.responder = responder
    model_env = {
        "SPICE_MODEL": "openai/fake",
        "SPICE_API_BASE": fake_openai.api_base,
        "SPICE_API_KEY": "sk-test-model-key-123",
        "SPICE_OUTPUT_MODE": "json_object",
        "SPICE_MAX_ATTEMPTS": "1",
        "SPICE_GITHUB_API_URL": fake_github.base_url,
        "SPICE_GITHUB_TOKEN": fake_github.bot_token,
        "SPICE_BOT_LOGIN": fake_github.bot_login,
    }
    stack = build_stack(service_settings(tmp_path, job_lease_s=LEASE_S))
    key = f"{REPO}#3"
    assert stack.deliver(payload(fake_github, "issues", "opened", REPO, 3), delivery_id="g1")

    first = start_worker(GITHUB_HANDLER, **model_env)
    wait_for(in_flight.is_set, 60, "the first worker to ask the model")
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    assert stack.job(key).state == "running"
    assert fake_github.issue_comments(REPO, 3) == []

    release.set()
    time.sleep(LEASE_S)
    second = start_worker(GITHUB_HANDLER, **model_env)
    wait_for(lambda: stack.job(key).state in ("done", "failed"), 60, "the restarted worker")
    second.send_signal(signal.SIGINT)
    second.wait(timeout=20)

    job = stack.job(key)
    assert (job.state, job.attempts, job.error) == ("done", 2, None)
    comments = fake_github.issue_comments(REPO, 3)
    assert len(comments) == 1 and comments[0]["user"]["login"] == fake_github.bot_login
    assert fake_github.label_names(REPO, 3) == ["clarity: minor-gaps"]
    with stack.sessions() as session:
        [row] = assessments_for(session, REPO, 3)
    assert (row.kind, row.model, row.labels) == ("issue", "openai/fake", ["clarity: minor-gaps"])
    assert row.tokens_in > 0 and row.votes[0]["votes"] == [1, 1, 1]


def test_sigterm_mid_job_hands_the_job_back_at_once(
    tmp_path: Path, start_worker: StartWorker, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    """`docker stop` sends SIGTERM: the running job is pending again within the stop grace,
    not after its lease, and the next worker posts the one comment."""
    fake_github.add_issue(REPO, 4, "Crash on empty input", "parse('') raises KeyError.")
    in_flight, release = threading.Event(), threading.Event()
    answer = scripted([1])

    def responder(request: dict[str, Any]) -> Reply:
        in_flight.set()
        release.wait(60)  # longer than the stop grace: the job cannot end in time
        return answer(request)

    fake_openai.responder = responder
    model_env = {
        "SPICE_MODEL": "openai/fake",
        "SPICE_API_BASE": fake_openai.api_base,
        "SPICE_API_KEY": "sk-test-model-key-123",
        "SPICE_OUTPUT_MODE": "json_object",
        "SPICE_MAX_ATTEMPTS": "1",
        "SPICE_GITHUB_API_URL": fake_github.base_url,
        "SPICE_GITHUB_TOKEN": fake_github.bot_token,
        "SPICE_BOT_LOGIN": fake_github.bot_login,
        "SPICE_WORKER_STOP_GRACE_S": "1",
        "SPICE_JOB_LEASE_S": "900",  # a stranded run would wait this long
    }
    stack = build_stack(service_settings(tmp_path, job_lease_s=900))
    key = f"{REPO}#4"
    assert stack.deliver(payload(fake_github, "issues", "opened", REPO, 4), delivery_id="t1")

    first = start_worker(GITHUB_HANDLER, **model_env)
    wait_for(in_flight.is_set, 60, "the first worker to ask the model")
    # The container health check of a worker: its heartbeat, written while the store answers.
    health = [sys.executable, "-m", "app.healthcheck", "--role", "worker"]
    checked = subprocess.run(health, env=os.environ | {"SPICE_DATA_DIR": str(tmp_path)})
    assert checked.returncode == 0
    first.send_signal(signal.SIGTERM)
    # It stops when told, within its 1 s grace, handing the run back (timing: benchmarks/).
    assert first.wait(timeout=120) == 0
    job = stack.job(key)
    assert (job.state, job.attempts) == ("pending", 0)
    assert fake_github.issue_comments(REPO, 4) == []
    log = (tmp_path / "worker0.log").read_text()
    assert "handed back 1 running job" in log and "Traceback" not in log

    release.set()
    second = start_worker(GITHUB_HANDLER, **model_env)
    # Handed back, the run is taken at once, not after the 900 s lease it would have waited.
    wait_for(lambda: stack.job(key).state in ("done", "failed"), 300, "the restarted worker")
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=20) == 0

    job = stack.job(key)
    assert (job.state, job.error) == ("done", None)
    comments = fake_github.issue_comments(REPO, 4)
    assert len(comments) == 1 and comments[0]["user"]["login"] == fake_github.bot_login
    assert fake_github.label_names(REPO, 4) == ["clarity: minor-gaps"]
    # The worker narrowed what the test made readable to all, and made its own files private.
    leaked = [p for p in [tmp_path, *tmp_path.glob("*")] if p.lstat().st_mode & 0o077]
    assert leaked == []

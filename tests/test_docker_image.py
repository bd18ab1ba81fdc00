"""The image is built and run, not only read: `docker build` on the local base image; the web
role answers /healthz on a port published on 127.0.0.1 and its health check passes on the
port given to `serve`; the worker role's health check passes; `docker stop` (10 s) stops a
worker in the middle of a job, which it hands back, and the next worker finishes it.

Slow (a cold build takes minutes, a cached one seconds, then three containers): it runs with
SPICE_IMAGE_TEST=1, which `.ci/run` sets after the default suite when it has a daemon and the
base image (`SPICE_IMAGE_TEST=1 ./dev test tests/test_docker_image.py
tests/test_docker_image_sandbox.py`); else it skips saying why. SPICE_DOCKER_BASE names
another base image (default spice-base:bookworm).
"""

from __future__ import annotations

import json
import subprocess
import threading
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.web.signature import sign
from tests.docker_image_support import (  # noqa: F401
    SECRET,
    _free_port,
    containers_fixture,
    docker,
    health,
    image_fixture,
    wait_for,
)
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.docker
WEB_PORT = 9000
"""Not the image's default 8000: the health check must follow `serve --port`."""


@pytest.fixture(scope="module")
def volume(image: str) -> Iterator[str]:
    name = f"spice-test-{uuid.uuid4().hex[:8]}"
    docker("volume", "create", name)
    yield name
    docker("volume", "rm", "-f", name, check=False)


def test_web_role_answers_on_a_published_port_and_its_health_check_follows_the_port(
    image: str, volume: str, containers: Callable[..., str]
) -> None:
    web = containers(
        *("-p", f"127.0.0.1::{WEB_PORT}", "-v", f"{volume}:/srv/spice/data"),
        *("-e", f"SPICE_WEBHOOK_SECRET={SECRET}", image),
        *("serve", "--host", "0.0.0.0", "--port", str(WEB_PORT)),
    )
    published = docker("port", web, f"{WEB_PORT}/tcp").splitlines()[0]
    assert published.startswith("127.0.0.1:"), published
    url = f"http://{published}/healthz"

    def answers() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return reply.status == 200 and json.loads(reply.read())["status"] == "ok"
        except OSError:
            return False

    wait_for(answers, 90, f"{url} to answer 200")
    wait_for(lambda: health(web) == "healthy", 60, "the web container's health check")
    # Started without the sandbox's flags: validation is off, and /healthz says why.
    with urllib.request.urlopen(url, timeout=60) as reply:
        body = json.loads(reply.read())
    said = body["validation"]
    assert said.startswith("off: live validation is off: no sandbox (bubblewrap cannot"), said
    # The image holds Python only (docs/app.md#docker), and /healthz says so, naming no path.
    languages = body["languages"]
    assert languages.pop("python") == "ok", body
    assert all(v.startswith("unavailable: ") and "/" not in v for v in languages.values()), body


def test_docker_stop_hands_back_the_running_job_and_the_next_worker_finishes_it(
    image: str,
    volume: str,
    containers: Callable[..., str],
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
) -> None:
    fake_github.add_issue(REPO, 4, "Crash on empty input", "parse('') raises KeyError.")
    in_flight, release = threading.Event(), threading.Event()
    answer = scripted([1])

    def responder(request: dict[str, Any]) -> Reply:
        in_flight.set()
        release.wait(60)  # longer than docker stop's 10 s: the job cannot end in time
        return answer(request)

    fake_openai.responder = responder
    env = {
        "SPICE_MODEL": "openai/fake",
        "SPICE_API_BASE": fake_openai.api_base,
        "SPICE_API_KEY": "sk-test-model-key-123",
        "SPICE_OUTPUT_MODE": "json_object",
        "SPICE_MAX_ATTEMPTS": "1",
        "SPICE_GITHUB_API_URL": fake_github.base_url,
        "SPICE_GITHUB_TOKEN": fake_github.bot_token,
        "SPICE_BOT_LOGIN": fake_github.bot_login,
        "SPICE_WEBHOOK_SECRET": SECRET,
        "SPICE_JOB_LEASE_S": "900",  # a stranded job would wait this long
    }
    # Host networking: the containers reach the two fakes on the host's 127.0.0.1; the
    # serve port is a free one of the host's.
    port = _free_port()
    common = ["--network", "host", "-v", f"{volume}:/srv/spice/data"]
    common += [f"--env={key}={value}" for key, value in env.items()]
    web = containers(*common, image, "serve", "--host", "127.0.0.1", "--port", str(port))
    worker = containers(*common, image, "worker")
    wait_for(lambda: health(web) == "healthy", 90, "the web container")
    wait_for(lambda: health(worker) == "healthy", 90, "the worker container's health check")

    body = json.dumps(payload(fake_github, "issues", "opened", REPO, 4)).encode()
    headers = {"Content-Type": "application/json", "X-GitHub-Event": "issues"}
    headers |= {"X-GitHub-Delivery": str(uuid.uuid4())}
    headers["X-Hub-Signature-256"] = sign(SECRET.encode(), body)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/webhook", body, headers)
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 202
    wait_for(in_flight.is_set, 60, "the worker to ask the model")

    docker("stop", worker, timeout=30)  # SIGTERM, then SIGKILL after 10 s
    code = docker("inspect", "--format", "{{.State.ExitCode}}", worker)
    logs = subprocess.run(["docker", "logs", worker], capture_output=True, text=True).stderr
    # Exit 0, not 137: it left on the SIGTERM, before docker's SIGKILL (no stopwatch needed).
    assert code == "0", f"exit {code}:\n{logs[-3000:]}"
    assert "handed back 1 running job" in logs and "Traceback" not in logs
    assert fake_github.issue_comments(REPO, 4) == []

    release.set()
    containers(*common, image, "worker")
    wait_for(lambda: bool(fake_github.issue_comments(REPO, 4)), 90, "the next worker's comment")
    assert fake_github.label_names(REPO, 4) == ["clarity: minor-gaps"]

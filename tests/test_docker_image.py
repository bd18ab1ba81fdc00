"""The image is built and run, not only read: `docker build` on the local base image; the web
role answers /healthz on a port published on 127.0.0.1 and its health check passes on the
port given to `serve`; the worker role's health check passes; `docker stop` (10 s) stops a
worker in the middle of a job, which it hands back, and the next worker finishes it. With
exactly the sandbox flags docs/app.md gives (read from the page), as root and as the image's
user, under the worker's umask 077: `spice validate` validates the calc instance in bubblewrap
inside the container, and so does the worker role for a merged pull request, while the web
role's /healthz says validation is on.

Slow (a cold build takes minutes, a cached one seconds, then three containers): it runs with
SPICE_IMAGE_TEST=1, which `.ci/run` sets after the default suite when it has a daemon and the
base image (`SPICE_IMAGE_TEST=1 ./dev test tests/test_docker_image.py`); else it skips saying
why. SPICE_DOCKER_BASE names another base image (default spice-base:bookworm).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.web.signature import sign
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.sample_project import make_calc_repo, merged_pull

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[1]
BASE = os.environ.get("SPICE_DOCKER_BASE", "spice-base:bookworm")
IMAGE = "spice-triage:pytest"
SECRET = "docker-test-webhook-secret"
WEB_PORT = 9000
"""Not the image's default 8000: the health check must follow `serve --port`."""
IMAGE_UID = 10001
"""The image's `spice` user."""
SANDBOX_OPTIONS = ("--security-opt", "--device", "--cap-add", "--privileged", "--user")
F2P = ["tests/test_calc.py::test_add"]


def documented_flags(role: str) -> list[str]:
    """The sandbox's flags of `role`'s `docker run` in docs/app.md (`--security-opt`, `--device`,
    and any capability or privilege it would add): a test with flags of its own would prove
    nothing about the page."""
    page = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    start = page.index(f"docker run -d --name spice-{role} ")
    words = shlex.split(page[start : page.index("\n```", start)].split("\ndocker ")[0])
    flags: list[str] = []
    for i, word in enumerate(words):
        if word == "--privileged":
            flags.append(word)
        elif word in SANDBOX_OPTIONS:
            flags += [word, words[i + 1]]
    return flags


def docker(*args: str, timeout: float = 120, check: bool = True) -> str:
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"docker {' '.join(args[:2])}: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds:.0f}s waiting for {what}")
        time.sleep(0.5)


def health(container: str) -> str:
    return docker("inspect", "--format", "{{.State.Health.Status}}", container, check=False)


@pytest.fixture(scope="module")
def image() -> str:
    if os.environ.get("SPICE_IMAGE_TEST") != "1":
        pytest.skip("builds and runs the image (minutes): set SPICE_IMAGE_TEST=1 (.ci/run does)")
    if shutil.which("docker") is None:
        pytest.skip("no docker client on PATH (scripts/docker-daemon.sh --install)")
    if subprocess.run(["docker", "info"], capture_output=True, timeout=30).returncode != 0:
        pytest.skip("no Docker daemon answers `docker info` (scripts/docker-daemon.sh)")
    if subprocess.run(["docker", "image", "inspect", BASE], capture_output=True).returncode:
        pytest.skip(f"no base image {BASE} (scripts/docker-base-image.sh)")
    started = time.monotonic()
    # Host networking: the build's pip reaches the package index as the host does.
    build = ["build", "--network", "host", "--build-arg", f"BASE_IMAGE={BASE}", "-t", IMAGE]
    docker(*build, str(ROOT), timeout=1800)
    size = int(docker("image", "inspect", "--format", "{{.Size}}", IMAGE))
    print(f"\nimage {IMAGE}: built in {time.monotonic() - started:.0f}s, {size / 1e6:.0f} MB")
    return IMAGE


@pytest.fixture(scope="module")
def volume(image: str) -> Iterator[str]:
    name = f"spice-test-{uuid.uuid4().hex[:8]}"
    docker("volume", "create", name)
    yield name
    docker("volume", "rm", "-f", name, check=False)


@pytest.fixture
def containers() -> Iterator[Callable[..., str]]:
    """`start(*docker_run_args)` runs a detached container, removed afterwards."""
    started: list[str] = []

    def start(*args: str) -> str:
        name = f"spice-test-{uuid.uuid4().hex[:8]}"
        docker("run", "-d", "--name", name, "--health-interval", "2s", *args)
        started.append(name)
        return name

    yield start
    for name in started:
        docker("rm", "-f", name, check=False)


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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def fresh_volume(image: str) -> Iterator[str]:
    name = f"spice-test-{uuid.uuid4().hex[:8]}"
    docker("volume", "create", name)
    yield name
    docker("volume", "rm", "-f", name, check=False)


def _calc(where: Path, user: str, name: str = "octo/calc") -> dict[str, str]:
    """The calc project at `where`/calc and its instance, readable by `user` in a container."""
    where.mkdir(parents=True, exist_ok=True)
    row = make_calc_repo(where / "calc", name)
    if user != "0":
        subprocess.run(["chown", "-R", f"{IMAGE_UID}:{IMAGE_UID}", str(where)], check=True)
    return row


@pytest.mark.parametrize("user", ["spice", "0"])
def test_spice_validate_runs_in_bubblewrap_in_the_container_under_the_workers_umask(
    image: str, tmp_path: Path, user: str
) -> None:
    row = _calc(tmp_path / "work", user)
    (tmp_path / "work" / "rows.jsonl").write_text(json.dumps(row) + "\n")
    if user != "0":
        os.chown(tmp_path / "work" / "rows.jsonl", IMAGE_UID, IMAGE_UID)
    script = (
        "umask 077 && exec spice validate /work/rows.jsonl --out /work/out.jsonl"
        " --repo octo/calc=/work/calc"
    )
    argv = ["docker", "run", "--rm", "--network", "host", *documented_flags("worker")]
    argv += ["--user", user, "-v", f"{tmp_path / 'work'}:/work", "-e", "SPICE_DATA_DIR=/work/data"]
    done = subprocess.run(
        [*argv, "--entrypoint", "sh", image, "-c", script],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [out] = [
        json.loads(line) for line in (tmp_path / "work" / "out.jsonl").read_text().splitlines()
    ]
    assert out["spice"]["validation"]["status"] == "valid", out["spice"]["validation"]
    assert json.loads(out["FAIL_TO_PASS"]) == F2P


@pytest.mark.timeout(900)
@pytest.mark.parametrize("user", ["spice", "0"])
def test_the_worker_role_validates_a_merged_pull_request_and_healthz_says_on(
    image: str,
    fresh_volume: str,
    containers: Callable[..., str],
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
    tmp_path: Path,
    user: str,
) -> None:
    row = make_calc_repo(tmp_path / "calc", REPO)
    mirror = tmp_path / "mirror"  # SPICE_GIT_BASE_URL: the worker clones the repository there
    bare = mirror / f"{REPO}.git"
    bare.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(tmp_path / "calc"), str(bare)], check=True)
    if user != "0":  # git serves a repository to its owner only
        subprocess.run(["chown", "-R", f"{IMAGE_UID}:{IMAGE_UID}", str(mirror)], check=True)
    merged_pull(fake_github, REPO, 10, row)
    fake_openai.responder = scripted([1, 2, 1])
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
        "SPICE_GIT_BASE_URL": "file:///mirror",
    }
    port = _free_port()
    common = ["--network", "host", "--user", user, "-v", f"{fresh_volume}:/srv/spice/data"]
    common += [f"--env={key}={value}" for key, value in env.items()]
    web = containers(*common, *documented_flags("web"), image,
                     "serve", "--host", "127.0.0.1", "--port", str(port))  # fmt: skip
    worker = containers(*common, *documented_flags("worker"), "-v", f"{mirror}:/mirror:ro",
                        image, "worker")  # fmt: skip
    wait_for(lambda: health(web) == "healthy", 90, "the web container")
    wait_for(lambda: health(worker) == "healthy", 90, "the worker container's health check")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=60) as reply:
        said = json.loads(reply.read())
    assert said["validation"] == "on", said

    body = json.dumps(payload(fake_github, "pull_request", "closed", REPO, 10)).encode()
    headers = {"Content-Type": "application/json", "X-GitHub-Event": "pull_request"}
    headers |= {"X-GitHub-Delivery": str(uuid.uuid4())}
    headers["X-Hub-Signature-256"] = sign(SECRET.encode(), body)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/webhook", body, headers)
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 202

    def validated() -> dict[str, Any] | None:
        """The exported row once the worker stored a validation on it."""
        docker("exec", web, "spice", "export", "--include-unvalidated", "--out", "/tmp/x.jsonl")
        rows = [json.loads(x) for x in docker("exec", web, "cat", "/tmp/x.jsonl").splitlines()]
        done = [r for r in rows if ((r.get("spice") or {}).get("validation") or {}).get("status")]
        return done[0] if done else None

    deadline = time.monotonic() + 600
    while (out := validated()) is None:
        logs = subprocess.run(["docker", "logs", worker], capture_output=True, text=True).stderr
        assert time.monotonic() < deadline, f"no validation stored in 600 s:\n{logs[-3000:]}"
        time.sleep(2)
    logs = subprocess.run(["docker", "logs", worker], capture_output=True, text=True).stderr
    assert out["spice"]["validation"]["status"] == "valid", f"{out['spice']}\n{logs[-3000:]}"
    assert json.loads(out["FAIL_TO_PASS"]) == F2P

"""The image the docker-marked tests build and run: `docker` itself, waiting on a container,
the image built on the local base (with SPICE_IMAGE_TEST=1, else a skip saying why), and
containers removed afterwards."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = os.environ.get("SPICE_DOCKER_BASE", "spice-base:bookworm")
IMAGE = "spice-triage:pytest"
SECRET = "docker-test-webhook-secret"


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


@pytest.fixture(name="image", scope="module")
def image_fixture() -> str:
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


@pytest.fixture(name="containers")
def containers_fixture() -> Iterator[Callable[..., str]]:
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


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])

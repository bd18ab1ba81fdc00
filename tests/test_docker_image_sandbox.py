"""The image's sandbox: with exactly the sandbox flags docs/app.md gives (read from the page),
as root and as the image's user, under the worker's umask 077, `spice validate` validates the
calc instance in bubblewrap inside the container, and so does the worker role for a merged
pull request, while the web role's /healthz says validation is on.

Slow like tests/test_docker_image.py, whose image build it reuses from Docker's cache: it runs
with SPICE_IMAGE_TEST=1 (`.ci/run` runs both files); else it skips saying why.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.web.signature import sign
from tests.docker_image_support import (  # noqa: F401
    ROOT,
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
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.sample_project import make_calc_repo, merged_pull

pytestmark = pytest.mark.docker
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

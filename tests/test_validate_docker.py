"""The Docker sandbox against a real daemon (`scripts/docker-daemon.sh`, with the base image of
`scripts/docker-base-image.sh`): the attack repository validated with `--executor docker`
fails at everything, as in bubblewrap, and the instance still validates. Without a daemon the
CLI says so in one line and runs nothing."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from spice_engine.validate.docker import DEFAULT_IMAGE, DockerSandbox
from tests.sandbox_attack import (
    SPICE,
    Scene,
    assert_the_attack_failed,
    attack_repo,
    probes,
    validate,
)
from tests.validation_support import calc_repo_fixture  # noqa: F401


@pytest.fixture(scope="module")
def docker_box() -> DockerSandbox:
    box = DockerSandbox(os.environ.get("SPICE_DOCKER_IMAGE", DEFAULT_IMAGE))
    if why := box.problem():
        pytest.skip(f"Docker suite: {why}")
    return box


@pytest.fixture
def scene(tmp_path: Path) -> Iterator[Scene]:
    made = Scene.make(tmp_path)
    yield made
    made.close()


@pytest.mark.docker
def test_the_attack_fails_in_containers_too(docker_box: DockerSandbox, scene: Scene) -> None:
    repo, row = attack_repo(scene.root, scene.targets(mirror=scene.root / "attack" / ".git"))
    [first], said = validate(scene, [row], repo, "--executor", "docker")
    assert_the_attack_failed(scene, first, said)
    [again], _ = validate(scene, [row], repo, "--executor", "docker")
    assert again["FAIL_TO_PASS"] == first["FAIL_TO_PASS"]
    assert probes(again)["tests:planted_ran"] == "False"
    names = subprocess.run(
        ["docker", "ps", "-a", "--format", "{{.Names}}"], capture_output=True, text=True
    ).stdout
    assert "spice-" not in names  # every container removed


@pytest.mark.docker
def test_a_timeout_removes_the_container(docker_box: DockerSandbox, tmp_path: Path) -> None:
    done = docker_box.run(
        ["sh", "-c", "sleep 300 & sleep 300"], binds=[], cwd=Path("/"), env={}, timeout_s=3
    )
    assert done.timed_out
    names = subprocess.run(
        ["docker", "ps", "-a", "--format", "{{.Names}}"], capture_output=True, text=True
    ).stdout
    assert "spice-" not in names


def test_without_a_daemon_the_cli_says_so_and_runs_nothing(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]]
) -> None:
    repo, row = calc_repo
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    env = os.environ | {
        "SPICE_DATA_DIR": str(tmp_path / "data"),
        "DOCKER_HOST": "unix:///nonexistent.sock",
    }
    done = subprocess.run(
        [
            SPICE,
            "validate",
            str(rows),
            "--repo",
            f"octo/calc={repo}",
            "--out",
            str(out),
            "--executor",
            "docker",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode != 0
    assert "--executor docker: no Docker daemon answers" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()

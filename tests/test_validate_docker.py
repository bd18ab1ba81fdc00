"""The Docker executor, tested as far as a machine without a Docker daemon allows: the image
it would build from a recipe, and a clear status (not a crash) when no daemon answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spice_engine.validate.docker import dockerfile
from spice_engine.validate.recipe import Recipe
from tests.validation_support import calc_repo_fixture  # noqa: F401

SPICE = str(Path(sys.executable).parent / "spice")


def test_the_image_follows_the_recipe() -> None:
    recipe = Recipe(
        python="3.9",
        extras=["testing"],
        extra_packages=["pytest"],
        resolve_before="2020-01-01T00:00:00Z",
        env={"SETUPTOOLS_SCM_PRETEND_VERSION": "5.4.0"},
    )
    text = dockerfile(recipe)
    assert text.startswith("FROM python:3.9-slim\n")
    assert "ENV SETUPTOOLS_SCM_PRETEND_VERSION=5.4.0\n" in text
    assert (
        "RUN uv pip install --system --no-build-isolation --exclude-newer 2020-01-01T00:00:00Z -e '.[testing]' pytest\n"
        in text
    )
    assert text.index("COPY . /testbed") < text.index("uv pip install --system setuptools")


def test_without_a_daemon_each_instance_says_so_and_the_run_completes(
    tmp_path: Path, calc_repo: tuple[Path, dict[str, str]]
) -> None:
    repo, row = calc_repo
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    # No daemon on this machine; elsewhere, point DOCKER_HOST at nothing to get the same.
    env = os.environ | {
        "SPICE_DATA_DIR": str(tmp_path / "data"),
        "DOCKER_HOST": "unix:///nonexistent.sock",
    }
    done = subprocess.run(
        [SPICE, "validate", str(rows), "--repo", f"octo/calc={repo}", "--out", str(out), "--executor", "docker"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    validation = json.loads(out.read_text())["spice"]["validation"]
    assert validation["status"] == "environment_failed"
    assert "Docker" in validation["detail"]
    assert "Traceback" not in done.stderr

"""The Docker executor: each (repository, version, Python) environment as an image built from
the recorded recipe — the image SWE-bench's harness runs (`image` in validated rows) — and
each job's tests run in a container over its worktree.

Needs a Docker daemon; without one it says so at the first job, and that job's status is
`environment_failed` (the local executor, the default, needs none).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from spice_engine.validate.executor import (
    RERUN_PLUGIN,
    EnvBuildError,
    Prepared,
    RunResult,
    run_command,
)
from spice_engine.validate.harness_fields import image_name
from spice_engine.validate.recipe import Recipe

BUILD_TIMEOUT_S = 1800.0
_RERUN_MOUNT = "/spice-rerun"


def dockerfile(recipe: Recipe) -> str:
    """The image of an environment: the recipe's Python, git, uv and its install commands,
    run over the repository at the environment's commit (the build context)."""
    env = "".join(f"ENV {k}={v}\n" for k, v in sorted(recipe.env.items()))
    installs = "".join(
        f"RUN {cmd.replace('uv pip install', 'uv pip install --system', 1)}\n"
        for cmd in recipe.install_cmds()
    )
    return (
        f"FROM python:{recipe.python}-slim\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends git build-essential"
        " && rm -rf /var/lib/apt/lists/*\n"
        "RUN pip install --no-cache-dir uv\n"
        "WORKDIR /testbed\n"
        "COPY . /testbed\n"
        f"{env}{installs}"
    )


class DockerExecutor:
    """`Executor` on a Docker daemon."""

    def __init__(self, docker: str = "docker") -> None:
        self.docker = shutil.which(docker) or docker

    def _daemon(self) -> None:
        try:
            done = subprocess.run([self.docker, "info"], capture_output=True, text=True, timeout=15)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EnvBuildError(f"no Docker here ({self.docker}: {exc})") from exc
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no answer"]
            raise EnvBuildError(f"no Docker daemon answers `docker info`: {why[0]}")

    def prepare(self, repo: str, version: str, recipe: Recipe, tree: Path, job: Path) -> Prepared:
        started = time.monotonic()
        self._daemon()
        tag = image_name(repo, version, recipe.python)
        built = (
            subprocess.run(
                [self.docker, "image", "inspect", tag], capture_output=True, timeout=30
            ).returncode
            != 0
        )
        if built:
            job.mkdir(parents=True, exist_ok=True)
            (job / "Dockerfile").write_text(dockerfile(recipe))
            cmd = [self.docker, "build", "-t", tag, "-f", str(job / "Dockerfile"), str(tree)]
            done = run_command(cmd, tree, {"PATH": "/usr/bin:/bin"}, BUILD_TIMEOUT_S, tail=4000)
            if done.returncode != 0:
                raise EnvBuildError(f"docker build {tag} failed: {done.log[-2000:]}")
        return Prepared(
            key=tag,
            python=Path("/usr/local/bin/python"),
            built=built,
            seconds=round(time.monotonic() - started, 3),
        )

    def run(
        self,
        prepared: Prepared,
        tree: Path,
        args: list[str],
        timeout_s: float,
        rerun_dir: Path | None = None,
    ) -> RunResult:
        """The job's worktree mounted over the image's copy, so its patches are what run."""
        cmd = [self.docker, "run", "--rm", "--network", "none", "-v", f"{tree}:/testbed"]
        plugin: list[str] = []
        if rerun_dir:
            cmd += ["-v", f"{rerun_dir}:{_RERUN_MOUNT}", "-e", f"SPICE_RERUN_DIR={_RERUN_MOUNT}"]
            cmd += ["-e", f"PYTHONPATH={_RERUN_MOUNT}"]
            plugin = ["-p", RERUN_PLUGIN]
        cmd += ["-w", "/testbed", prepared.key, "python", "-m", "pytest", "-rA", *plugin, *args]
        return run_command(cmd, tree, {"PATH": "/usr/bin:/bin"}, timeout_s)

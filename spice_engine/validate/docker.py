"""The Docker sandbox: each command in its own container on a Docker daemon.

The same seam as bubblewrap (`Sandbox`): the local executor builds environments and runs tests
exactly as it does there, and each command runs in a throw-away container of the operator's
base image with `--read-only` root, `--cap-drop ALL`, no-new-privileges, a non-root user,
`--pids-limit`, `--memory`, rlimits and `--network none` (installs too). Paths are bind
mounts at the same places as in bubblewrap: the worktree at `/testbed` with its own git
directory read-only behind it (so `git apply` in `/testbed` works, as in SWE-bench's harness).

The base image must carry the system libraries of the machine's interpreters (they are mounted
from the host at their own paths, so its `/root` must be open to the user for pyenv's): `scripts/docker-base-image.sh` makes one with debootstrap from the host's own
distribution; an operator may name their own (`SPICE_DOCKER_IMAGE`). Installs reach the package
index, and only it, through the host's index proxy (spice_engine.validate.index_route), whose
socket is mounted into the container.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from spice_engine.validate.command_progress import Progress
from spice_engine.validate.executor import RunResult
from spice_engine.validate.index_access import IndexAccess
from spice_engine.validate.index_route import run_via_index
from spice_engine.validate.sandbox import Bind, Limits, run_limited, which
from spice_engine.validate.sandbox_files import etc_files, hand_over

DEFAULT_IMAGE = "spice-base:bookworm"
SANDBOX_UID = 65534
_CLIENT_ENV = ("PATH", "HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH")
"""What the docker client itself needs; none of it reaches the container."""


class DockerSandbox:
    """`Sandbox` on a Docker daemon."""

    name = "docker"

    def __init__(
        self,
        image: str = DEFAULT_IMAGE,
        docker: str = "docker",
        uid: int = SANDBOX_UID,
        limits: Limits | None = None,
        index: IndexAccess | None = None,
    ) -> None:
        self.image, self.docker, self.uid = image, which(docker) or docker, uid
        self.limits = limits or Limits()
        # What installs may reach (None: the package index the worker's settings name).
        self.index = index

    def _docker(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.docker, *args], capture_output=True, text=True, timeout=timeout, check=False
        )

    def problem(self) -> str | None:
        try:
            info = self._docker("info", "--format", "{{.ServerVersion}}", timeout=15)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"no Docker here ({self.docker}: {exc})"
        if info.returncode != 0:
            why = (info.stderr or info.stdout).strip().splitlines()[-1:] or ["no answer"]
            return f"no Docker daemon answers `docker info`: {why[0]}"
        if self._docker("image", "inspect", self.image).returncode != 0:
            return (
                f"no image {self.image!r} on the Docker daemon: build it with "
                "scripts/docker-base-image.sh or name yours with SPICE_DOCKER_IMAGE"
            )
        return None

    def prepare_writable(self, path: Path) -> None:
        hand_over(path, self.uid)

    def run(
        self,
        cmd: Sequence[str],
        *,
        binds: Sequence[Bind],
        cwd: Path,
        env: Mapping[str, str],
        timeout_s: float,
        network: bool = False,
        network_python: Path | None = None,
        registries: Collection[str] = (),
        channel: bool = False,
        lookups: bool = False,
        idle_s: float | None = None,
        progress: Progress | None = None,
    ) -> RunResult:
        if network:
            return run_via_index(
                self,
                self.index,
                cmd,
                registries=registries,
                binds=binds,
                cwd=cwd,
                env=env,
                timeout_s=timeout_s,
                python=network_python,
                idle_s=idle_s,
                progress=progress,
            )
        name = f"spice-{uuid.uuid4().hex[:16]}"
        lim = self.limits
        argv = [self.docker, "run", "--rm", "--name", name, "--init", "--read-only"]
        argv += ["--network", "none"]
        argv += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
        argv += ["--user", f"{self.uid}:{self.uid}", "--pids-limit", str(lim.processes)]
        argv += ["--memory", str(lim.memory_bytes), "--memory-swap", str(lim.memory_bytes)]
        argv += ["--ulimit", f"cpu={lim.cpu_s}", "--ulimit", f"nofile={lim.open_files}"]
        argv += ["--ulimit", f"fsize={lim.file_bytes}", "--ulimit", "core=0"]
        argv += ["--tmpfs", f"/tmp:rw,exec,size={lim.tmp_bytes},mode=1777"]
        for bind in binds:
            ro = "" if bind.writable else ",readonly"
            argv += ["--mount", f"type=bind,src={bind.source},dst={bind.target}{ro}"]
        argv += ["--workdir", str(cwd)]
        full_env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", **env}
        for key, value in sorted(full_env.items()):
            argv += ["--env", f"{key}={value}"]
        with tempfile.TemporaryDirectory(prefix="spice-docker-etc-") as etc:
            for target, source in etc_files(Path(etc), self.uid, None).items():
                argv += ["--mount", f"type=bind,src={source},dst={target},readonly"]
            argv += [self.image, *cmd]
            return self._run(name, argv, binds, timeout_s, channel, idle_s, progress)

    def _run(
        self,
        name: str,
        argv: list[str],
        binds: Sequence[Bind],
        timeout_s: float,
        channel: bool = False,
        idle_s: float | None = None,
        progress: Progress | None = None,
    ) -> RunResult:
        lim = self.limits
        try:
            return run_limited(
                argv,
                env={k: v for k, v in os.environ.items() if k in _CLIENT_ENV},
                timeout_s=timeout_s,
                limits=lim,
                watch=[b.source for b in binds if b.writable],
                channel=channel,
                idle_s=idle_s,
                progress=progress,
            )
        finally:
            # The client going away does not stop its container: remove it, whatever ended.
            self._docker("rm", "--force", name, timeout=60)

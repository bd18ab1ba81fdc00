"""The local sandbox: bubblewrap (the sandbox Flatpak is built on), per command.

Each run gets new PID, IPC, UTS and network namespaces, a root made of the system's `/usr`, a
few files of `/etc`, the binds it is given and nothing else, a memory-backed `/tmp`, rlimits,
and an unprivileged user. When this process is root, bubblewrap sets up the mounts as root and
`setpriv` drops to `uid` with no capabilities (so the process limit counts that user); a root
without CAP_SYS_ADMIN (a container's) does so inside a user namespace mapping every id to
itself (spice_engine.validate.namespaces). Otherwise bubblewrap runs unprivileged in a user
namespace, as this process's user. No run has a network: a phase that must
fetch packages reaches the package index, and only it, through the host's index proxy
(spice_engine.validate.index_route).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import tenacity

from spice_engine.validate import namespaces, sandbox_probe
from spice_engine.validate.command_progress import Progress
from spice_engine.validate.executor import RunResult
from spice_engine.validate.index_access import IndexAccess
from spice_engine.validate.index_route import run_via_index, worker_access
from spice_engine.validate.sandbox import (
    FIXED_PATH,
    Bind,
    Limits,
    SandboxUnavailable,
    run_limited,
    which,
)
from spice_engine.validate.sandbox_files import etc_files, hand_over
from spice_engine.validate.sandbox_root import own_cgroups, system_root, witnessed

SANDBOX_UID = 65534
ETC_FILES = (
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/hosts",
    "/etc/nsswitch.conf",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/mime.types",
)
"""System files a build or a test run reads; never the rest of /etc."""
SETUP_ATTEMPTS = 8
_LOOPBACK_RACE = "bwrap: loopback: Failed"


class Bubblewrap:
    """`Sandbox` on bubblewrap (Debian's `bubblewrap`)."""

    name = "bubblewrap"

    def __init__(
        self,
        bwrap: str = "bwrap",
        uid: int = SANDBOX_UID,
        limits: Limits | None = None,
        setup_wait_s: float = 0.2,
        setup_attempts: int = SETUP_ATTEMPTS,
        index: IndexAccess | None = None,
    ) -> None:
        self.bwrap = bwrap
        # What installs may reach (None: the package index the worker's settings name).
        self.index = index
        # Starting again after a set-up failure: how often, first waiting this long (doubling).
        self.setup_wait_s, self.setup_attempts = setup_wait_s, setup_attempts
        self.uid = uid
        self.limits = limits or Limits()
        self.privileged = os.geteuid() == 0
        # A container's root may not make mount namespaces of its own (no CAP_SYS_ADMIN), but
        # it may in a user namespace it made: set-up happens there, ids stay the host's.
        self.own_userns = self.privileged and not namespaces.has_capability(
            namespaces.CAP_SYS_ADMIN
        )
        self.inside_uid = uid if self.privileged else os.getuid()
        """Who sandboxed code runs as: `uid` for a root worker, else the worker's own user."""

    def problem(self, scratch: Path | None = None) -> str | None:
        """Why a job's command cannot run here: a binary missing, or the sandbox failing to do
        what every job does in a scratch directory made under `scratch` (default: the system's
        temporary directory) as jobs make theirs (sandbox_probe)."""
        missing = [b for b in (self.bwrap, "prlimit") if which(b) is None]
        if self.privileged and which("setpriv") is None:
            missing.append("setpriv")
        if self.own_userns and which("unshare") is None:
            missing.append("unshare")
        if missing:
            return (
                f"{', '.join(missing)} not found: install Debian's `bubblewrap` (and util-linux)"
                " or set SPICE_BWRAP_PATH"
            )
        where = scratch if scratch is not None else Path(tempfile.gettempdir())
        return sandbox_probe.job_problem(self, where, self.inside_uid)

    def network_problem(self) -> str | None:
        try:
            worker_access(self.index)
        except SandboxUnavailable as exc:
            return str(exc)
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
        with contextlib.ExitStack() as held:
            etc = Path(held.enter_context(tempfile.TemporaryDirectory(prefix="spice-sandbox-")))
            userns = None
            if self.own_userns:
                userns = held.enter_context(namespaces.identity_user_namespace())
            files = etc_files(etc, self.inside_uid, None)
            folders: list[str] = []
            if lookups:
                cmd, shown, folders = witnessed(cmd)
                binds = [*binds, *shown]
            bwrap = self._bwrap_argv(binds, files, cwd, userns, folders)
            argv = [*self._prlimit(), *bwrap, *cmd]
            full_env = {"PATH": FIXED_PATH, "LANG": "C.UTF-8", **env}
            watch = [b.source for b in binds if b.writable]
            fds = [userns] if userns is not None else []

            # bubblewrap's set-up of the new namespace's loopback can fail for a moment (the
            # host's netlink under load: "RTM_NEWADDR: No child processes"): nothing of the
            # command ran; start again.
            @tenacity.retry(
                retry=tenacity.retry_if_result(
                    lambda done: done.returncode == 1 and _LOOPBACK_RACE in done.log[:300]
                ),
                stop=tenacity.stop_after_attempt(self.setup_attempts),
                wait=tenacity.wait_exponential(multiplier=self.setup_wait_s, max=5),
                retry_error_callback=_last_result,
            )
            def once() -> RunResult:
                return run_limited(
                    argv,
                    env=full_env,
                    timeout_s=timeout_s,
                    limits=self.limits,
                    watch=watch,
                    pass_fds=fds,
                    channel=channel,
                    idle_s=idle_s,
                    progress=progress,
                )

            return once()

    def _prlimit(self) -> list[str]:
        lim = self.limits
        return [
            which("prlimit") or "prlimit",
            f"--cpu={lim.cpu_s}",
            f"--as={lim.memory_bytes}",
            f"--nproc={lim.processes}",
            f"--nofile={lim.open_files}",
            f"--fsize={lim.file_bytes}",
            "--core=0",
            "--",
        ]

    def _bwrap_argv(
        self,
        binds: Sequence[Bind],
        files: dict[str, Path],
        cwd: Path,
        userns: int | None,
        folders: Sequence[str] = (),
    ) -> list[str]:
        argv = [which(self.bwrap) or self.bwrap, "--die-with-parent", "--new-session"]
        if userns is not None:
            argv += ["--userns", str(userns)]
        argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        argv += ["--unshare-net", "--hostname", "sandbox"]
        argv += [*system_root(), "--perms", "0755", "--dir", "/etc"]
        for path in ETC_FILES:
            argv += ["--ro-bind-try", path, path]
        for target, source in files.items():
            argv += ["--ro-bind", str(source), target]
        argv += ["--dev", "/dev", "--proc", "/proc"]
        # A writable /dev/shm, as in a container: POSIX semaphores live there, and every
        # multiprocessing lock fails without one (bubblewrap's own is root's).
        argv += ["--perms", "1777", "--size", str(self.limits.tmp_bytes), "--tmpfs", "/dev/shm"]
        if cgroups := own_cgroups():
            # The sandbox's own cgroups, read-only, where a container sees its own (runtimes
            # read their CPU and memory limits there; some panic without them).
            for folder in ("/sys", "/sys/fs", "/sys/fs/cgroup"):
                argv += ["--perms", "0755", "--dir", folder]
            for own, seen in cgroups:
                argv += ["--ro-bind", str(own), seen]
        argv += ["--perms", "1777", "--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp"]
        argv += folders
        made: set[Path] = {Path("/"), Path("/tmp"), Path("/usr"), Path("/etc")}
        made |= {Path(f) for f in folders if f.startswith("/")}
        for bind in binds:
            for parent in reversed(bind.target.parents):
                if parent not in made:
                    argv += ["--perms", "0755", "--dir", str(parent)]
                    made.add(parent)
            argv += ["--bind" if bind.writable else "--ro-bind", str(bind.source), str(bind.target)]
            made.add(bind.target)
        argv += ["--chdir", str(cwd)]
        if self.privileged:
            caps = ["CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"]
            argv += ["--cap-drop", "ALL", *(a for c in caps for a in ("--cap-add", c))]
            argv += ["--", which("setpriv") or "setpriv", f"--reuid={self.uid}"]
            argv += [f"--regid={self.uid}", "--clear-groups", "--inh-caps=-all"]
            argv += ["--bounding-set=-all", "--"]
        else:
            argv += ["--unshare-user", "--disable-userns", "--uid", str(os.getuid())]
            argv += ["--gid", str(os.getgid()), "--"]
        return argv


def _last_result(state: tenacity.RetryCallState) -> RunResult:
    """After the last attempt, its result as it is (the caller reports the failure)."""
    assert state.outcome is not None
    result: RunResult = state.outcome.result()
    return result

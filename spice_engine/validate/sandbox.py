"""The seam every execution of repository code goes through.

A repository's build backend, `setup.py` and tests are hostile until proven otherwise: a merged
pull request is enough to put code there. A `Sandbox` runs one command with only the paths it is
given, an explicit environment, limits, and no network (a phase that asks for the package
index reaches it through the host's index proxy, spice_engine.validate.index_route).
`Bubblewrap` (spice_engine.validate.bubblewrap) is the one to use; `Unsandboxed` exists for
trusted repositories only and says so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from spice_engine.validate.command_progress import CappedOutput, Progress
from spice_engine.validate.executor import RunResult

FIXED_PATH = "/usr/local/bin:/usr/bin:/bin"
_PROXY_ENV = ("HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY")
WATCH_EVERY_S = 0.5
INSTALL_IDLE_S = 300
"""How long an install from the package index may show no sign of life (no output, nothing
through the index proxy) before it is stopped: a download stalled on a connection that never
answers, a prompt nobody will see. Not for test runs, which may think quietly for longer."""
SANDBOX_UMASK = 0o022
"""A sandboxed command's umask: SWE-bench's containers' (a test that checks the modes of files it
creates passes or fails as there), never the worker's own (the App's is 077)."""


class SandboxUnavailable(RuntimeError):
    """No sandbox can run here; the message says why and what to install."""


class Bind(BaseModel):
    """A host path made visible inside the sandbox (read-only unless `writable`)."""

    model_config = ConfigDict(frozen=True)

    source: Path
    target: Path
    writable: bool = False


class Limits(BaseModel):
    """What one sandboxed command may use (each process, except `processes`: all of them)."""

    model_config = ConfigDict(frozen=True)

    cpu_s: int = 3600
    memory_bytes: int = 8 << 30
    """Address space per process."""
    processes: int = 1024
    """Processes of the sandbox's user at once: a fork bomb stops here."""
    open_files: int = 4096
    file_bytes: int = 4 << 30
    """Largest file a process may write."""
    tmp_bytes: int = 1 << 30
    """Size of the sandbox's own `/tmp` (memory-backed)."""
    output_bytes: int = 32 << 20
    """Kept of the command's output: its first and last parts, with what was cut said."""
    min_free_disk_bytes: int = 1 << 30
    """The command is killed when the disk of a writable path falls below this much free."""


class Sandbox(Protocol):
    """Runs repository code with only what it is given."""

    name: str

    def problem(self) -> str | None:
        """Why this sandbox cannot run here (None: it can)."""
        ...

    def prepare_writable(self, path: Path) -> None:
        """Make `path` (a scratch tree or file of ours) usable by sandboxed processes, whatever
        this process's umask."""
        ...

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
        """Run `cmd`; on return no process of it is left. With `network`, it reaches the
        operator's package index and `registries` (`host:port`: its language's), and nothing
        else, through the host's index proxy, by a forwarder that `network_python` (a path the
        sandbox shows; default its `python3`) runs. With
        `channel`, what the command writes to its standard output comes back apart from its
        log (`RunResult.channel`): the executor makes that a descriptor only our plugin holds
        (`channel_command`). With `lookups` (and no `network`), each host name a process of
        it looks up and cannot have is noted in its log as it happens
        (spice_engine.validate.lookup_witness; a sandbox that cannot runs it as it is). With `idle_s`, it is stopped once neither its output nor
        `progress` (another sign of life; with `network`, the bytes the index proxy relays
        count too) has moved for that long."""
        ...


def run_limited(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    timeout_s: float,
    limits: Limits,
    watch: Sequence[Path] = (),
    pass_fds: Sequence[int] = (),
    on_start: Callable[[subprocess.Popen[bytes]], None] | None = None,
    channel: bool = False,
    idle_s: float | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Run `argv` in its own session; its process group is killed at the timeout, when a
    watched disk runs low, or (with `idle_s`) once neither its output nor `progress` has moved
    for `idle_s` seconds. `on_start(proc)` (if given) runs once the process exists. With
    `channel`, standard output is read apart (`RunResult.channel`) and the log is standard
    error alone."""
    started = time.monotonic()
    progress = progress if progress is not None else Progress()
    progress.mark()  # the clock starts with the command, not with whoever made `progress`
    proc = subprocess.Popen(
        list(argv),
        cwd="/",
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if channel else subprocess.STDOUT,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
        umask=SANDBOX_UMASK,
    )
    assert proc.stdout is not None
    if channel:
        assert proc.stderr is not None
        output = CappedOutput(proc.stderr, limits.output_bytes, progress)
        results: CappedOutput | None = CappedOutput(proc.stdout, limits.output_bytes, progress)
    else:
        output, results = CappedOutput(proc.stdout, limits.output_bytes, progress), None
    killed = ""
    try:
        if on_start is not None:
            on_start(proc)
        deadline = started + timeout_s
        while proc.poll() is None:
            if time.monotonic() >= deadline:
                killed = "timeout"
            elif low := _low_disk(watch, limits.min_free_disk_bytes):
                killed = f"disk: less than {limits.min_free_disk_bytes >> 20} MiB free on {low}"
            elif idle_s is not None and progress.quiet_s() >= idle_s:
                killed = f"no progress for {idle_s:g} s ({progress.quiet})"
            if killed:
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(WATCH_EVERY_S)
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    log = output.text()
    if killed and killed != "timeout":
        log += f"\n[spice sandbox: killed, {killed}]\n"
    return RunResult(
        log=log,
        returncode=None if killed else proc.returncode,
        seconds=round(time.monotonic() - started, 3),
        killed=killed or None,
        channel=results.text() if results is not None else "",
    )


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _low_disk(paths: Sequence[Path], floor: int) -> str | None:
    for path in paths:
        try:
            st = os.statvfs(path)
        except OSError:
            continue
        if st.f_bavail * st.f_frsize < floor:
            return str(path)
    return None


class Unsandboxed:
    """Runs repository code as this process, with only an explicit environment: for trusted
    repositories, when the operator asked for it by name (`--no-sandbox`)."""

    name = "none"

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    def problem(self) -> str | None:
        return None

    def prepare_writable(self, path: Path) -> None:
        return None

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
        # This process's own network, with the worker's own proxy: it reaches what the
        # worker does, `registries` or not.
        if network:
            env = {**{k: v for k, v in os.environ.items() if k.upper() in _PROXY_ENV}, **env}
        # Without a mount namespace a path is where it is: commands name the targets, so each
        # bind's target must be its source (the executor makes them so for this sandbox).
        moved = [b for b in binds if b.source != b.target]
        if moved:
            raise SandboxUnavailable(f"unsandboxed runs cannot move {moved[0].source}")
        argv = ["env", "-C", str(cwd), *cmd]
        return run_limited(
            argv,
            env={"PATH": FIXED_PATH, **env},
            timeout_s=timeout_s,
            limits=self.limits,
            watch=[b.source for b in binds if b.writable],
            channel=channel,
            idle_s=idle_s,
            progress=progress,
        )


CHANNEL_FD = 3
"""Where a command run by `channel_command` finds the channel (its standard output as given)."""


def channel_command(cmd: Sequence[str]) -> list[str]:
    """`cmd` with the sandbox's standard output moved to descriptor `CHANNEL_FD` and its own
    standard output sent to the log: a plugin takes that descriptor at start-up (closing it
    for the rest of the process and its children), so results never pass through a file the
    tests could replace or rewrite, nor through the log the tests print to."""
    return ["/bin/sh", "-c", f'exec "$@" {CHANNEL_FD}>&1 1>&2', "sh", *cmd]


def which(binary: str) -> str | None:
    """`binary` as a path if it is one, else looked up on PATH."""
    return binary if os.sep in binary and os.access(binary, os.X_OK) else shutil.which(binary)

"""User-mode networking for a bubblewrap sandbox: slirp4netns attached to its network namespace
before the command starts, the host's loopback cut off."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from spice_engine.validate.executor import RunResult
from spice_engine.validate.sandbox import Limits, run_limited

INFO_FD, BLOCK_FD = "{info}", "{block}"
"""Stand-ins in bubblewrap's argv for the descriptors `run_networked` opens."""

UserNamespaceOf = Callable[[int], int | None]
"""Given the sandbox's pid, a new descriptor of the user namespace slirp4netns must join to
configure its network (closed after slirp4netns starts), or None to join none (root)."""


def run_networked(
    argv: Sequence[str],
    *,
    slirp: str,
    userns_of: UserNamespaceOf,
    env: Mapping[str, str],
    timeout_s: float,
    limits: Limits,
    watch: Sequence[Path],
    pass_fds: Sequence[int] = (),
) -> RunResult:
    """Run bubblewrap's `argv`: it waits on `--block-fd` until slirp4netns has the network up.
    When slirp4netns cannot, the sandbox is killed before the command starts and the log says
    why (the command would otherwise run with no network, failing on a name it cannot look up)."""
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    argv = [str(info_w) if a == INFO_FD else str(block_r) if a == BLOCK_FD else a for a in argv]
    slirps: list[subprocess.Popen[bytes]] = []
    failed: list[str] = []
    open_fds = {info_r, info_w, block_r, block_w}

    def close(fd: int) -> None:
        if fd in open_fds:
            open_fds.discard(fd)
            os.close(fd)

    def connect(proc: subprocess.Popen[bytes]) -> None:
        close(info_w)
        close(block_r)
        text = b""
        while chunk := os.read(info_r, 4096):  # EOF once bubblewrap has written it
            text += chunk
            if b"}" in chunk:
                break
        child = json.loads(text or b"{}").get("child-pid")
        if not child:
            return  # bubblewrap failed before it started: its output says why
        _await_loopback(int(child))
        if why := attach(int(child)):
            failed.append(why)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(BrokenPipeError):  # bubblewrap is gone: its log says why
            os.write(block_w, b"1")
        close(block_w)

    def attach(child: int) -> str | None:
        """slirp4netns on the sandbox's network namespace; why not, if it could not."""
        try:
            userns = userns_of(child)
        except OSError as exc:
            return f"its user namespace: {exc.strerror}"
        ready_r, ready_w = os.pipe()
        cmd = [slirp, "--configure", "--mtu=65520", "--disable-host-loopback"]
        cmd += ["--ready-fd", str(ready_w)]
        if userns is not None:
            cmd.append(f"--userns-path=/proc/self/fd/{userns}")
        with tempfile.TemporaryFile() as said:
            with os.fdopen(ready_r, "rb") as ready:
                try:
                    slirps.append(
                        subprocess.Popen(
                            [*cmd, str(child), "tap0"],
                            stdout=said,
                            stderr=subprocess.STDOUT,
                            pass_fds=(ready_w, *([userns] if userns is not None else [])),
                        )
                    )
                except OSError as exc:
                    return f"{slirp}: {exc.strerror}"
                finally:
                    os.close(ready_w)
                    if userns is not None:
                        os.close(userns)
                if ready.read(1):
                    return None
            slirps[-1].wait()  # it exited without the network up
            said.seek(0)
            lines = said.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit {slirps[-1].returncode}"

    try:
        done = run_limited(
            argv,
            env=env,
            timeout_s=timeout_s,
            limits=limits,
            watch=watch,
            pass_fds=(info_w, block_r, *pass_fds),
            on_start=connect,
        )
    finally:
        for fd in list(open_fds):
            close(fd)
        for proc in slirps:
            proc.kill()
            proc.wait()
    if failed:
        note = f"\n[spice sandbox: slirp4netns could not start the network: {failed[0]}]\n"
        return done.model_copy(update={"log": done.log + note})
    return done


def _await_loopback(child: int, timeout_s: float = 5.0) -> None:
    """Until bubblewrap has the sandbox's loopback up (its routes appear in the namespace):
    slirp4netns configuring the namespace meanwhile makes bubblewrap's own set-up fail
    ("loopback: Failed RTM_NEWADDR", half the time here). Gone or slow: go on regardless."""
    routes = Path(f"/proc/{child}/net/fib_trie")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if "127.0.0.0/8" in routes.read_text():
                return
        except OSError:
            return
        time.sleep(0.002)

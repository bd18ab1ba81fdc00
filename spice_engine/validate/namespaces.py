"""Linux namespaces bubblewrap needs handed to it: which capabilities this process holds, and a
user namespace made for a root without CAP_SYS_ADMIN (a container's)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from spice_engine.validate.sandbox import SandboxUnavailable, which

CAP_SYS_ADMIN = 21
HOLDER_START_S = 5.0


def has_capability(cap: int) -> bool:
    """Whether this process holds `cap` in its effective set (a container's root does not hold
    CAP_SYS_ADMIN: it cannot make mount namespaces outside a user namespace of its own)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> cap & 1)
    return False


@contextlib.contextmanager
def identity_user_namespace() -> Iterator[int]:
    """A new user namespace mapping every user and group id this process sees to itself, as a
    descriptor: a root without CAP_SYS_ADMIN holds every capability there, so bubblewrap can
    set a sandbox up in it (mounts, loopback) while ids, and so file ownership, stay the
    host's. Writing the maps takes CAP_SETUID, CAP_SETGID and CAP_SETFCAP (Docker grants
    them). Its holder process is gone once the descriptor is open."""
    unshare = which("unshare") or "unshare"
    holder = subprocess.Popen(
        [unshare, "--user", "--", "sleep", "60"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _await_own_namespace(holder)
        for name in ("uid_map", "gid_map"):
            ranges = [line.split() for line in Path(f"/proc/self/{name}").read_text().splitlines()]
            identity = "".join(f"{inner} {inner} {count}\n" for inner, _, count in ranges)
            try:
                _write_map(f"/proc/{holder.pid}/{name}", identity)
            except OSError as exc:
                raise SandboxUnavailable(
                    f"cannot map ids into a user namespace ({name}: {exc.strerror}): root needs "
                    "CAP_SETUID, CAP_SETGID and CAP_SETFCAP, or CAP_SYS_ADMIN"
                ) from exc
        fd = os.open(f"/proc/{holder.pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        holder.kill()
        holder.communicate()
    try:
        yield fd
    finally:
        os.close(fd)


def _await_own_namespace(holder: subprocess.Popen[bytes]) -> None:
    """Until `holder` has left this process's user namespace (unshare runs before its exec)."""
    own = os.readlink("/proc/self/ns/user")
    deadline = time.monotonic() + HOLDER_START_S
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{holder.pid}/ns/user") != own:
                return
        if holder.poll() is not None:
            assert holder.stderr is not None
            why = holder.stderr.read().decode(errors="replace").strip() or "no output"
            raise SandboxUnavailable(f"cannot make a user namespace: {why}")
        time.sleep(0.001)
    raise SandboxUnavailable(
        f"cannot make a user namespace: unshare gave none in {HOLDER_START_S}s"
    )


def _write_map(path: str, text: str) -> None:
    """One write, as the kernel takes an id map (a second write to the file is refused)."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)

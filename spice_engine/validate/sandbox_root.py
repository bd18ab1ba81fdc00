"""What every bubblewrap sandbox's root is made of besides its binds: the system's `/usr`,
the worker's own cgroups where a container sees its own, and, for a run whose name lookups
are noted, the folder glibc finds its name service in (spice_engine.validate.lookup_witness).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from spice_engine.validate.sandbox import Bind

WITNESS = Path("/run/spice/lookup_witness.py")
"""Where the sandbox sees the lookup witness."""
WITNESS_PYTHON = Path("/usr/bin/python3")
"""The interpreter the witness runs under: the machine's (every sandbox shows `/usr`)."""
NSCD = "/var/run/nscd"
NSCD_BYTES = 1 << 16
"""The witness's folder holds its socket and nothing else worth more than this."""


def witnessed(cmd: Sequence[str]) -> tuple[list[str], list[Bind], list[str]]:
    """`cmd` under the lookup witness: the command, the bind showing the witness, and the
    bubblewrap arguments making its folder (`cmd` as it is when the machine has no
    `/usr/bin/python3`)."""
    if not WITNESS_PYTHON.exists():
        return list(cmd), [], []
    source = Path(__file__).with_name("lookup_witness.py")
    folders = ["--perms", "0755", "--dir", "/var", "--perms", "0755", "--dir", "/var/run"]
    folders += ["--perms", "1777", "--size", str(NSCD_BYTES), "--tmpfs", NSCD]
    argv = [str(WITNESS_PYTHON), "-I", "-S", str(WITNESS), "--", *cmd]
    return argv, [Bind(source=source, target=WITNESS)], folders


def own_cgroups(root: Path = Path("/sys/fs/cgroup")) -> list[tuple[Path, str]]:
    """This process's cgroup folders (where its sandboxes run too) and where a container sees
    them: v2's one folder as the whole of `/sys/fs/cgroup`, v1's each as its controller's."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found: list[tuple[Path, str]] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if not path.startswith("/"):
            continue
        name = controllers.removeprefix("name=")
        own = root / name / path[1:] if name else root / path[1:]
        if (own / "cgroup.procs").is_file():
            found.append((own, f"/sys/fs/cgroup/{name}" if name else "/sys/fs/cgroup"))
    unified = [f for f in found if f[1] == "/sys/fs/cgroup"]
    return (
        unified
        if unified and (root / "cgroup.controllers").is_file()
        else [f for f in found if f[1] != "/sys/fs/cgroup"]
    )


def system_root() -> list[str]:
    """`/usr` read-only, and the top-level directories Debian links into it."""
    argv = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    return argv

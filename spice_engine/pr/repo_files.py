"""A repository's files as data: tracked regular files only, read without following a link.

A repository is hostile input. A tracked symlink (`pkg/settings.py -> /proc/self/environ`),
a path with `..` from a PR's diff, a submodule, a FIFO or a huge blob must never put
anything but the repository's own text into a prompt.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path, PurePosixPath

MAX_FILE_BYTES = 1_000_000
"""Larger files are not read at all (a prompt shows excerpts far smaller than this)."""
REGULAR_MODES = frozenset({"100644", "100755"})


def safe_relative(path: str) -> bool:
    """A plain path inside the tree: relative, no `..`, `.` or empty parts, nothing in `.git`."""
    if not path or "\0" in path or "\\" in path or path.startswith("/"):
        return False
    parts = PurePosixPath(path).parts
    return (
        all(p not in ("", ".", "..") for p in parts)
        and ".git" not in parts
        and ("/".join(parts) == path.rstrip("/"))
    )


def tracked_regular_files(root: Path, max_bytes: int = MAX_FILE_BYTES) -> dict[str, int]:
    """Path -> size of every regular file of the commit checked out at `root` (HEAD), up to
    `max_bytes`; symlinks (mode 120000) and submodules (160000) are left out. Empty when
    `root` is not a git repository."""
    proc = subprocess.run(
        ["git", "ls-tree", "-r", "-z", "--long", "--full-tree", "HEAD"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        return {}
    files: dict[str, int] = {}
    for entry in proc.stdout.split(b"\0"):
        meta, _, raw_path = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4 or fields[1] != b"blob" or fields[0].decode() not in REGULAR_MODES:
            continue
        path = raw_path.decode("utf-8", errors="replace")
        size = int(fields[3]) if fields[3].isdigit() else max_bytes + 1
        if size <= max_bytes and safe_relative(path):
            files[path] = size
    return files


def read_regular(root: Path, path: str, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """The UTF-8 text of the regular file `path` under `root`, or None.

    None for anything that is not plainly inside `root`: a link anywhere on the way, a
    non-regular file, a file over `max_bytes`, text that is not UTF-8.
    """
    if not safe_relative(path):
        return None
    base = os.path.realpath(root)
    full = os.path.join(base, path)
    if os.path.realpath(full) != os.path.normpath(full):
        return None  # a symlink on the way, wherever it points
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(full, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def relative_to_root(root: Path, filename: str) -> str | None:
    """`filename` (absolute, as aider passes it) relative to `root`, or None outside it."""
    base = os.path.realpath(root)
    full = os.path.normpath(os.path.join(base, filename))
    if not full.startswith(base + os.sep):
        return None
    return full[len(base) + 1 :].replace(os.sep, "/")

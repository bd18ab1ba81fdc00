"""The data directory holds payloads of private repositories and the dashboard's signing key:
only its owner may read it."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private(data_dir: Path) -> None:
    """From now on this process creates files 0600 and directories 0700; the data directory
    and the files already in it are narrowed to that too (they may predate this release)."""
    os.umask(PRIVATE_UMASK)
    data_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    data_dir.chmod(DIR_MODE)
    for path in data_dir.iterdir():
        mode = path.lstat().st_mode
        if stat.S_ISREG(mode) and mode & 0o077:
            path.chmod(FILE_MODE)
        elif stat.S_ISDIR(mode) and mode & 0o077:
            path.chmod(DIR_MODE)


def read_or_create(path: Path, make: Callable[[], bytes]) -> bytes:
    """The content of the private file at `path`, created with `make()` if it is missing.

    Processes starting together agree on one content: each writes its own temporary file and
    links it into place, which fails if another got there first (then its file is read). The
    file appears whole or not at all, so no reader ever sees it half-written.
    """
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # 0600
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(make())
            out.flush()
            os.fsync(out.fileno())
        # Another process made it first: then its content is the one everyone uses.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
    return path.read_bytes()

"""The data directory holds payloads of private repositories: only its owner may read it."""

from __future__ import annotations

import os
import stat
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

"""The files a sandbox is given: its few `/etc` files, and scratch trees handed to its user."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from spice_engine.validate import door


def etc_files(where: Path, uid: int, resolver: str | None) -> dict[str, Path]:
    """Files a sandbox shows in `/etc` (target -> file written under `where`): a passwd and
    group naming only the sandbox's user, a git config that lets git (setuptools_scm's, the
    tests') read worktrees the worker checked out, and a resolver when one is given."""
    files = {
        "/etc/passwd": f"root:x:0:0:root:/root:/bin/sh\nsandbox:x:{uid}:{uid}::/tmp:/bin/sh\n",
        "/etc/group": f"root:x:0:\nsandbox:x:{uid}:\n",
        "/etc/gitconfig": "[safe]\n\tdirectory = *\n",
    }
    if resolver is not None:
        files["/etc/resolv.conf"] = f"nameserver {resolver}\n"
    out = {}
    for target, text in files.items():
        door.write_text(where, Path(target).name, text)
        out[target] = where / Path(target).name
    where.chmod(0o755)
    return out


def hand_over(path: Path, uid: int) -> None:
    """Give a scratch tree of ours (or one file) to the sandbox, whatever this process's umask.

    A root worker's sandbox runs as `uid`: the tree becomes its. Every directory is also made
    0755 and every file readable (0644, 0755 if executable), as a umask of 022 would have made
    them: the App's umask is 077, and bubblewrap enters the working directory as root with its
    capabilities already dropped, so an owner-only directory of the sandbox's user is closed to
    it. Other users of the machine are kept out by the private data directory above the tree.
    """
    _own(path, uid)
    if path.is_dir() and not path.is_symlink():
        for top, dirs, files in os.walk(path):
            for name in dirs + files:
                _own(Path(top, name), uid)


def _own(path: Path, uid: int) -> None:
    st = os.lstat(path)
    if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (uid, uid):
        os.chown(path, uid, uid, follow_symlinks=False)
    if stat.S_ISDIR(st.st_mode):
        wanted = st.st_mode | 0o755
    elif stat.S_ISREG(st.st_mode):
        wanted = st.st_mode | (0o755 if st.st_mode & 0o100 else 0o644)
    else:  # links (their own mode means nothing), sockets, fifos
        return
    if stat.S_IMODE(wanted) != stat.S_IMODE(st.st_mode):
        os.chmod(path, stat.S_IMODE(wanted))

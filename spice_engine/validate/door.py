"""The host's one door into a tree that sandboxed code could write.

Once repository code has run, its worktree, job scratch and venvs are data the attacker shaped:
any component of a path may have become a symlink (to `/proc/self/environ`, to the App's venv),
a FIFO that blocks a reader, or a file of gigabytes. Every host read and write of such a tree
goes through here: each component is opened relative to the one before with `O_NOFOLLOW`, only
directories are walked into and only regular files are read, reads are capped, and a write
replaces the entry (a new file renamed over it) instead of writing through whatever is there.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path, PurePath, PurePosixPath

from spice_engine.errors import InputError

MAX_READ_BYTES = 64 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class DoorRefused(InputError):
    """A path in a sandbox-touched tree is a link, a special file, too big, or leaves the tree."""


def _parts(rel: str | PurePath) -> list[str]:
    parts = [p for p in PurePosixPath(rel).parts if p not in ("", ".")]
    if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
        raise DoorRefused(f"not a path inside the tree: {str(rel)!r}")
    return parts


@contextlib.contextmanager
def _directory(root: Path, parts: list[str], create: bool = False) -> Iterator[int]:
    """A descriptor of `root/parts...`, each step refusing links (created when `create`)."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for name in parts:
            made = False
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
                    made = True
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise DoorRefused(f"{name!r} under {root} is not a directory: {exc}") from exc
            os.close(fd)
            fd = nxt
            if made:
                os.fchmod(fd, 0o755)  # not the worker's umask: the sandbox user reads it
        yield fd
    finally:
        os.close(fd)


def read_bytes(root: Path, rel: str | PurePath, limit: int = MAX_READ_BYTES) -> bytes:
    """The regular file `rel` under `root`, never through a link, at most `limit` bytes."""
    *dirs, name = _parts(rel)
    with _directory(root, dirs) as dfd:
        try:
            fd = os.open(
                name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd
            )
        except OSError as exc:
            raise DoorRefused(f"cannot open {rel} under {root}: {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise DoorRefused(f"{rel} under {root} is not a regular file")
        if info.st_size > limit:
            raise DoorRefused(f"{rel} under {root} is larger than {limit} bytes")
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise DoorRefused(f"{rel} under {root} is larger than {limit} bytes")
    return data


def read_text(root: Path, rel: str | PurePath, limit: int = MAX_READ_BYTES) -> str:
    return read_bytes(root, rel, limit).decode("utf-8", errors="replace")


def is_file(root: Path, rel: str | PurePath) -> bool:
    """Whether `rel` is a regular file reached without a link."""
    try:
        *dirs, name = _parts(rel)
        with _directory(root, dirs) as dfd:
            info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except (OSError, DoorRefused):
        return False
    return stat.S_ISREG(info.st_mode)


def write_bytes(root: Path, rel: str | PurePath, data: bytes, mode: int = 0o644) -> None:
    """`rel` under `root` replaced by a new regular file (parents made as directories): a link
    or FIFO left there is replaced, never written through."""
    *dirs, name = _parts(rel)
    with _directory(root, dirs, create=True) as dfd:
        temp = f".spice-{uuid.uuid4().hex}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, mode, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as fh:
                os.fchmod(fh.fileno(), mode)  # whatever the worker's umask (077 in the App)
                fh.write(data)
            os.replace(temp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dfd)
            raise


def write_text(root: Path, rel: str | PurePath, text: str, mode: int = 0o644) -> None:
    write_bytes(root, rel, text.encode("utf-8"), mode)


def remove(root: Path, rel: str | PurePath) -> None:
    """The entry `rel` removed (a link itself, never its target); absent is fine."""
    *dirs, name = _parts(rel)
    try:
        with _directory(root, dirs) as dfd, contextlib.suppress(FileNotFoundError):
            info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                raise DoorRefused(f"{rel} under {root} is a directory")
            os.unlink(name, dir_fd=dfd)
    except DoorRefused as exc:
        if "is not a directory" not in str(exc):
            raise  # a parent that is gone or not a directory: nothing of ours to remove


def files(root: Path, limit: int = 200_000) -> list[str]:
    """Relative paths of the regular files under `root`, never descending through a link."""
    found: list[str] = []

    def walk(fd: int, prefix: str) -> None:
        for entry in sorted(os.listdir(fd)):
            info = os.stat(entry, dir_fd=fd, follow_symlinks=False)
            rel = f"{prefix}{entry}"
            if stat.S_ISREG(info.st_mode):
                found.append(rel)
                if len(found) > limit:
                    raise DoorRefused(f"more than {limit} files under {root}")
            elif stat.S_ISDIR(info.st_mode):
                sub = os.open(entry, _DIR_FLAGS, dir_fd=fd)
                try:
                    walk(sub, rel + "/")
                finally:
                    os.close(sub)

    top = os.open(root, _DIR_FLAGS)
    try:
        walk(top, "")
    finally:
        os.close(top)
    return found

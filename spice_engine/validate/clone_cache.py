"""Bare clones kept in a cache and fetched again on reuse, whatever the upstream rewrote.

A plain `git fetch --tags` refuses a tag the upstream moved ("would clobber existing tag"),
and would refuse it on every later fetch: the cached clone is stuck. Here branches and tags are
fetched forced and pruned, so the cache mirrors the upstream; a clone that still cannot be
fetched is made again beside it and swapped in. One caller at a time per clone (a file lock):
two fetches into one repository can leave it half-updated.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from spice_engine.validate.gitwork import GitError, run_git

REFSPECS = ("+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
"""Every branch and tag as the upstream has it now, moved or force-pushed ones included."""
CLONES = ".clones"
"""Under the cache: the clones themselves; `<cache>/<owner+name>.git` links to the current one,
so a new clone replaces an old one in one step (a link is renamed over the other)."""


def clone_from_github(repo: str, cache: Path, base_url: str = "https://github.com") -> Path:
    """A bare clone of `owner/name` from `base_url` (GitHub, an Enterprise host, a mirror, a
    path), kept in `cache`: fetched again on reuse, cloned again if it cannot be fetched."""
    cache.mkdir(parents=True, exist_ok=True)
    name = f"{repo.replace('/', '+')}.git"
    target = cache / name
    url = f"{base_url.rstrip('/')}/{repo}.git"
    with _locked(cache / f"{name}.lock"):
        if target.exists():
            try:
                # --git-dir, not the directory: a broken clone must not let git find a
                # repository above the cache and force its refs there.
                _git(cache, f"--git-dir={target}", "fetch", "--quiet", "--prune", url, *REFSPECS)
                return target
            except GitError:
                pass  # a clone git cannot fetch into any more: a new one replaces it
        _swap_in(_clone(url, cache / CLONES, name), target)
    return target


def _git(cwd: Path, *args: str) -> str:
    return run_git(cwd, *args).decode("utf-8", errors="replace")


def _clone(url: str, clones: Path, name: str) -> Path:
    """A new bare clone of `url` in a directory of its own under `clones`."""
    clones.mkdir(parents=True, exist_ok=True)
    where = Path(tempfile.mkdtemp(dir=clones, prefix=f"{name}-"))
    try:
        _git(clones, "clone", "--quiet", "--bare", url, str(where / "repo.git"))
    except BaseException:
        shutil.rmtree(where, ignore_errors=True)
        raise
    return where / "repo.git"


def _swap_in(clone: Path, target: Path) -> None:
    """Make `target` the link to `clone` in one rename; the clone it replaces is removed. A
    directory left at `target` by an older cache layout is moved aside first."""
    old = target.resolve() if target.is_symlink() else None
    if target.exists() and not target.is_symlink():
        aside = target.with_name(f".{target.name}.old-{os.getpid()}")
        target.rename(aside)
        old = aside
    link = target.with_name(f".{target.name}.link-{os.getpid()}")
    with suppress(FileNotFoundError):
        link.unlink()
    link.symlink_to(clone)
    os.replace(link, target)
    if old is not None and old != clone:
        # A clone of ours sits in a directory of its own; a legacy one is the directory.
        ours = old.parent.parent.name == CLONES
        shutil.rmtree(old.parent if ours else old, ignore_errors=True)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Held by one caller at a time, in this process or another (an advisory `flock`)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(path, flags, 0o600), "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)

"""A commit's git submodules, checked out from repositories the run was given, offline.

A submodule's URL names another repository (`https://github.com/kkos/oniguruma.git`, or one
relative to the superproject's). When the run was given that repository (`--repo OWNER/NAME=`)
and it holds the pinned commit, the host checks the commit out into the submodule's folder of
a new tree, with its own git on the given repository's objects (never git in the tree, never
the tree's config): the build sees the submodule as a recursive clone has it. One that cannot
be had is named, `missing_submodule: <path> (<url>)`.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from spice_engine.validate.gitwork import GitError, git, git_dir_of, has_commit

DEPTH = 3
"""Submodules of submodules are followed this deep."""
_URL = re.compile(r"[:/]([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def pinned(git_dir: Path, commit: str) -> dict[str, tuple[str, str]]:
    """Path -> (pinned commit, URL) of each submodule of `commit` (URL "" when
    `.gitmodules` names none)."""
    listing = git(git_dir, "ls-tree", "-r", "-z", commit).split("\0")
    links = {
        e.split("\t", 1)[1]: e.split()[2] for e in listing if e.startswith("160000 ") and "\t" in e
    }
    if not links:
        return {}
    try:
        config = git(
            git_dir, "config", "--blob", f"{commit}:.gitmodules", "-z", "--get-regexp", r"\.path$"
        )
    except GitError:
        config = ""
    urls: dict[str, str] = {}
    for entry in filter(None, config.split("\0")):
        key, _, path = entry.partition("\n")
        name = key.removeprefix("submodule.").removesuffix(".path")
        try:
            urls[path] = git(
                git_dir, "config", "--blob", f"{commit}:.gitmodules", f"submodule.{name}.url"
            ).strip()
        except GitError:
            urls[path] = ""
    return {path: (sha, urls.get(path, "")) for path, sha in links.items()}


def repository_of(url: str, superproject: str) -> str | None:
    """`owner/name` a submodule URL names; a relative URL is the superproject's sibling."""
    if url.startswith(("../", "./")):
        owner, _, name = superproject.partition("/")
        parts = [owner, name]
        for step in url.rstrip("/").split("/"):
            if step == "..":
                parts = parts[:-1]
            elif step not in (".", ""):
                parts.append(step)
        return "/".join(parts[-2:]).removesuffix(".git") if len(parts) >= 2 else None
    found = _URL.search(url)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def _source(name: str | None, sources: Mapping[str, Path]) -> Path | None:
    lowered = {k.lower(): v for k, v in sources.items()}
    return lowered.get(name.lower()) if name else None


def missing(
    git_dir: Path, commit: str, superproject: str, sources: Mapping[str, Path]
) -> list[str]:
    """`missing_submodule: <path> (<url>)` for each submodule no given repository holds."""
    found = []
    for path, (sha, url) in sorted(pinned(git_dir, commit).items()):
        source = _source(repository_of(url, superproject), sources)
        if source is None or not has_commit(source, sha):
            found.append(f"missing_submodule: {path} ({url or 'no URL in .gitmodules'})")
    return found


def fill(
    tree: Path,
    git_dir: Path,
    commit: str,
    superproject: str,
    sources: Mapping[str, Path],
    depth: int = 0,
) -> None:
    """Each submodule of `commit` a given repository holds, checked out into its (empty)
    folder of the new `tree`; nested ones too, `DEPTH` deep."""
    if depth >= DEPTH:
        return
    for path, (sha, url) in sorted(pinned(git_dir, commit).items()):
        name = repository_of(url, superproject)
        source = _source(name, sources)
        if source is None or name is None or not has_commit(source, sha):
            continue
        folder = tree / path
        try:
            mode = os.lstat(folder).st_mode
        except FileNotFoundError:
            mode = 0
        if mode and (not stat.S_ISDIR(mode) or os.listdir(folder)):
            continue  # not the empty folder a checkout leaves for a submodule
        _checkout(git_dir_of(source), sha, folder)
        fill(folder, source, sha, name, sources, depth + 1)


def _checkout(source: Path, commit: str, folder: Path) -> None:
    """`commit` of `source` into a new folder beside the tree's, moved into place."""
    where = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".spice-submodule-"))
    try:
        target = where / "tree"
        target.mkdir(mode=0o755)
        target.chmod(0o755)
        env = {"GIT_INDEX_FILE": str(where / "index")}
        git(source, "read-tree", commit, env=env)
        git(source, f"--work-tree={target}", "checkout-index", "-a", "-f", "-u", env=env)
        if folder.exists():
            folder.rmdir()
        target.rename(folder)
    finally:
        shutil.rmtree(where, ignore_errors=True)

"""Git for validation: repositories from a path or bundle, scratch worktrees, patch checks."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from spice_engine.errors import InputError

GIT_TIMEOUT_S = 300
GIT_UMASK = 0o022
"""What git creates (clones, worktrees, their files in the git directory) the sandbox's user reads:
its modes are set here, not by the worker's umask (the App's is 077)."""
# A release, or the `X.Y.0.dev0`-style tag some projects put on their main branch when the
# previous release branched off (their main is already the next version).
_RELEASE = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)*(?:[.-]?(?:dev|rc|a|b)\d*)?$")


class GitError(InputError):
    """A git command failed; the message is git's own."""


def git(repo: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    """Run git in `repo`; hooks, fsmonitor and prompts off (a repository is data, not code we
    trust). Worktrees belong to the sandbox's user once tests ran in them: git must not refuse
    them as another user's."""
    cmd = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"]
    cmd += ["-c", "safe.directory=*", "-c", "advice.detachedHead=false", *args]
    full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    done = subprocess.run(
        cmd,
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT_S,
        env=full_env,
        umask=GIT_UMASK,
    )
    if done.returncode != 0:
        raise GitError(f"git {args[0]}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def open_repository(path: Path, cache: Path) -> Path:
    """A git directory for `path`: the repository itself, or a bare clone of a bundle."""
    if path.is_dir():
        return path
    if not path.is_file():
        raise InputError(f"no repository or bundle at {path}")
    target = cache / f"{path.stem}-{path.stat().st_size}.git"
    if not target.exists():
        cache.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=cache, prefix=".clone-"))
        try:
            git(cache, "clone", "--quiet", "--bare", str(path.resolve()), str(partial / "r.git"))
            (partial / "r.git").rename(target)
        except FileExistsError:
            pass  # another worker finished the same clone first
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    return target


def has_commit(repo: Path, commit: str) -> bool:
    try:
        git(repo, "cat-file", "-e", f"{commit}^{{commit}}")
    except GitError:
        return False
    return True


@contextmanager
def worktree(repo: Path, commit: str, scratch: Path) -> Iterator[Path]:
    """A detached worktree of `commit` under `scratch`, removed (and pruned) afterwards."""
    where = Path(tempfile.mkdtemp(dir=scratch, prefix="wt-"))
    path = where / "repo"
    try:
        git(repo, "worktree", "add", "--quiet", "--detach", "--force", str(path), commit)
        yield path
    finally:
        shutil.rmtree(where, ignore_errors=True)
        with suppress(GitError):
            git(repo, "worktree", "prune")


def apply_problem(repo: Path, commit: str, patches: list[str]) -> str | None:
    """Why `patches`, applied in order at `commit`, would not apply (None: they do).

    Checked against a throw-away index of `commit`, so no checkout is needed and the real
    index is untouched; each patch but the last is applied to that index for the next.
    """
    with tempfile.TemporaryDirectory(prefix="spice-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, "read-tree", commit, env=env)
        for i, patch in enumerate(patches):
            last = i == len(patches) - 1
            args = ["apply", "--cached", "--check"] if last else ["apply", "--cached"]
            try:
                git(repo, *args, "-", stdin=patch, env=env)
            except GitError as exc:
                return str(exc)
    return None


def apply(tree: Path, patch: str, reverse: bool = False) -> None:
    git(tree, "apply", *(["-R"] if reverse else []), "-", stdin=patch)


def untracked(tree: Path) -> list[str]:
    """Files in the worktree git does not track, ignored ones included."""
    out = git(tree, "status", "--porcelain", "-z", "--ignored", "--untracked-files=all")
    return [entry[3:] for entry in out.split("\0") if entry[:3] in ("?? ", "!! ")]


def is_tracked(tree: Path, path: str) -> bool:
    return bool(git(tree, "ls-files", "--", path).strip())


def commit_date(repo: Path, commit: str) -> str:
    """Committer date as ISO 8601 UTC (`2019-05-30T17:27:52Z`)."""
    stamp = git(repo, "show", "-s", "--format=%ct", commit).strip()
    from datetime import UTC, datetime

    return datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def release_version(repo: Path, commit: str) -> str | None:
    """`major.minor` of the newest release tag reachable from `commit` (None: no such tag)."""
    best: tuple[int, int] | None = None
    for tag in git(repo, "tag", "--merged", commit).split():
        if m := _RELEASE.match(tag):
            found = (int(m.group(1)), int(m.group(2)))
            best = found if best is None or found > best else best
    return f"{best[0]}.{best[1]}" if best else None


def export_files(repo: Path, commit: str, dest: Path, wanted: Callable[[str], bool]) -> None:
    """Copy the files of `commit` whose paths `wanted` accepts into `dest` (no checkout)."""
    for name in git(repo, "ls-tree", "-r", "--name-only", commit).splitlines():
        if wanted(name):
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            blob = subprocess.run(
                ["git", "show", f"{commit}:{name}"],
                cwd=repo,
                capture_output=True,
                timeout=GIT_TIMEOUT_S,
            )
            if blob.returncode == 0:
                target.write_bytes(blob.stdout)


def clone_from_github(repo: str, cache: Path, base_url: str = "https://github.com") -> Path:
    """A bare clone of `owner/name` from GitHub (or `base_url`: an Enterprise host, a local
    mirror), kept in `cache` and fetched on reuse."""
    target = cache / f"{repo.replace('/', '+')}.git"
    cache.mkdir(parents=True, exist_ok=True)
    if target.exists():
        git(target, "fetch", "--quiet", "--tags", "origin")
        return target
    git(cache, "clone", "--quiet", "--bare", f"{base_url.rstrip('/')}/{repo}.git", str(target))
    return target


def common_dir(dot_git: Path) -> Path | None:
    """The repository a worktree's `.git` file points into (its common directory)."""
    try:
        text = dot_git.read_text(encoding="utf-8") if dot_git.is_file() else ""
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return dot_git if dot_git.is_dir() else None
    worktree_dir = Path(text.split(":", 1)[1].strip())
    return worktree_dir.parent.parent if worktree_dir.parent.name == "worktrees" else worktree_dir

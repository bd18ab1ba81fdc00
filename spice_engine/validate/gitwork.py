"""Git for validation, run only on git directories of ours named explicitly: repositories from a
path or bundle, patch checks, files of a commit. Trees are checked out by `spice_engine.validate.tree`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import suppress
from functools import lru_cache
from pathlib import Path

from spice_engine.errors import InputError
from spice_engine.redaction import env_secret_values, redact
from spice_engine.validate import door

GIT_TIMEOUT_S = 300
GIT_UMASK = 0o022
"""What git creates (clones, the trees it checks out) the sandbox's user reads: its modes are
set here, not by the worker's umask (the App's is 077)."""
# A release, or the `X.Y.0.dev0`-style tag some projects put on their main branch when the
# previous release branched off (their main is already the next version).
_RELEASE = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)*(?:[.-]?(?:dev|rc|a|b)\d*)?$")


class GitError(InputError):
    """A git command failed; the message is git's own."""


GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ATTR_NOSYSTEM": "1",
}
"""No system or user config (hooks, filters, credential helpers of this machine's users)."""
SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "protocol.ext.allow=never",
    "safe.directory=*",
    "advice.detachedHead=false",
)


_USERINFO = re.compile(r"://[^/@\s]+@")
"""Credentials in a URL git quotes in its errors."""


def git_dir_of(path: Path) -> Path:
    """The git directory of a repository given as its work tree or as the directory itself."""
    return path / ".git" if (path / ".git").is_dir() else path


def run_git(
    cwd: Path, *args: str, stdin: str | bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    """git in `cwd` with the safe settings, no system or user config and none of the worker's
    own `GIT_*` settings (a GIT_DIR of its own must not steer ours); errors name the command,
    with credentials in URLs and secrets redacted."""
    cmd = ["git"] + [a for c in SAFE_CONFIG for a in ("-c", c)] + list(args)
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(
        cmd,
        cwd=cwd,
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        timeout=GIT_TIMEOUT_S,
        env=base | GIT_ENV | (env or {}),
        umask=GIT_UMASK,
    )
    if done.returncode != 0:
        err = (done.stderr or done.stdout).decode("utf-8", errors="replace").strip()
        command = next((a for a in args if not a.startswith("-") and a != str(cwd)), "")
        said = _USERINFO.sub("://***@", err)
        raise GitError(f"git {command}: {redact(said, env_secret_values())}")
    return done.stdout


def git_bytes(
    repo: Path, *args: str, stdin: str | bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    """git on the repository whose git directory is `repo`, named explicitly: never found
    from a directory (a tree's `.git` could point anywhere), hooks, fsmonitor and prompts
    off, no system or user config."""
    where = git_dir_of(repo).absolute()
    return run_git(where, "--git-dir", str(where), *args, stdin=stdin, env=env)


def git(repo: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    return git_bytes(repo, *args, stdin=stdin, env=env).decode("utf-8", errors="replace")


def _clone(cache: Path, *args: str) -> None:
    run_git(cache, "clone", "--quiet", "--bare", *args)


def open_repository(path: Path, cache: Path) -> Path:
    """A git directory for `path`: the repository itself, or a bare clone of a bundle."""
    if path.is_dir():
        return git_dir_of(path)
    if not path.is_file():
        raise InputError(f"no repository or bundle at {path}")
    target = cache / f"{path.stem}-{path.stat().st_size}.git"
    if not target.exists():
        cache.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=cache, prefix=".clone-"))
        try:
            _clone(cache, str(path.resolve()), str(partial / "r.git"))
            (partial / "r.git").rename(target)
        except FileExistsError:
            pass  # another worker finished the same clone first
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    return target


def has_commit(repo: Path, commit: str) -> bool:
    key = (git_dir_of(repo).absolute(), commit)
    if _HASH.fullmatch(commit) and key in _HELD:
        return True  # an object once there stays (a commit missing now may be fetched later)
    try:
        git(repo, "cat-file", "-e", f"{commit}^{{commit}}")
    except GitError:
        return False
    _HELD.add(key)
    return True


_HELD: set[tuple[Path, str]] = set()
"""(repository, commit hash) pairs seen present."""
_HASH = re.compile(r"[0-9a-f]{40}")
"""A commit named by its hash: what it holds cannot change."""


_LINK_MODES = re.compile(r"\b(?:120000|160000)\b")


def unsafe_patch(repo: Path, patch: str) -> str | None:
    """Why the host will not apply `patch` (None: it may): it makes or changes a symbolic link
    or a submodule (the host would then write through it), or names a path in a `.git`."""
    headers = r"^(?:diff --git|---|\+\+\+|rename from|rename to|copy from|copy to) (.*)$"
    for header in re.findall(headers, patch, re.MULTILINE):
        if any(p.lower().rstrip(". ") == ".git" for p in re.split(r"[/\\ ]", header)):
            return f"the patch touches a `.git` path ({header.strip()[:200]})"
    for section in re.split(r"^(?=diff --git )", patch, flags=re.MULTILINE):
        modes = r"^(?:(?:old|new|deleted file|new file) mode 1[26]0000|index \S+ 1[26]0000)"
        if re.search(modes, section, re.MULTILINE):
            where = re.match(r"diff --git a/\S+ b/(\S+)", section)
            path = where.group(1) if where else "a file"
            return f"the patch makes or changes a symbolic link or submodule at {path}"
    return _unsafe_modes(git_dir_of(repo).absolute(), patch)


@lru_cache(maxsize=64)
def _unsafe_modes(repo: Path, patch: str) -> str | None:
    # git's own reading of the modes, whatever the text's spelling: of the patch's text alone,
    # so one reading serves every tree it is applied to (a validation applies each patch ~6 times).
    try:
        summary = git(repo, "apply", "--summary", "--numstat", "-", stdin=patch)
    except GitError:
        return None  # unreadable: `git apply --check` says why
    for line in summary.splitlines():
        if _LINK_MODES.search(line) and "mode" in line:
            return f"the patch makes a symbolic link or submodule ({line.strip()})"
    return None


def apply_problem(repo: Path, commit: str, patches: list[str]) -> str | None:
    """Why `patches`, applied in order at `commit`, would not apply (None: they do).

    Checked against a throw-away index of `commit`, so no checkout is needed and the real
    index is untouched; each patch but the last is applied to that index for the next. A patch
    the host must not apply at all (`unsafe_patch`) is refused first.
    """
    for patch in patches:
        if patch and (why := unsafe_patch(repo, patch)):
            return why
    if _HASH.fullmatch(commit):
        return _apply_problem_at(git_dir_of(repo).absolute(), commit, tuple(patches))
    return _apply_problem_at.__wrapped__(repo, commit, tuple(patches))


@lru_cache(maxsize=32)
def _apply_problem_at(repo: Path, commit: str, patches: tuple[str, ...]) -> str | None:
    # Cached only for a commit named by its hash (what it holds cannot change): a session's
    # checks and its twin's ask the same question.
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


def commit_date(repo: Path, commit: str) -> str:
    """Committer date as ISO 8601 UTC (`2019-05-30T17:27:52Z`)."""
    stamp = git(repo, "show", "-s", "--format=%ct", commit).strip()
    from datetime import UTC, datetime

    return datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def lacks_contents(repo: Path, commit: str) -> bool:
    """Whether some file of `commit` has no contents in the repository (a partial snapshot:
    the commit cannot be checked out)."""
    listing = git(repo, "ls-tree", "-r", "-z", commit).split("\0")
    blobs = [entry.split()[2] for entry in listing if entry and entry.split()[1] == "blob"]
    if not blobs:
        return False
    found = git(repo, "cat-file", "--batch-check", stdin="\n".join(blobs) + "\n")
    return any(line.endswith(" missing") for line in found.splitlines())


def submodules(repo: Path, commit: str) -> list[str]:
    """Paths of `commit`'s git submodules (their contents live in other repositories)."""
    listing = git(repo, "ls-tree", "-r", "-z", commit).split("\0")
    return [e.split("\t", 1)[1] for e in listing if e.startswith("160000 ") and "\t" in e]


def release_version(repo: Path, commit: str) -> str | None:
    """`major.minor` of the newest release tag reachable from `commit` (None: no such tag)."""
    best: tuple[int, int, str] | None = None
    for tag in git(repo, "tag", "--merged", commit).split():
        if m := _RELEASE.match(tag):
            # Compared as numbers, written as the tag writes them (`2022.03` stays padded).
            found = (int(m.group(1)), int(m.group(2)), f"{int(m.group(1))}.{m.group(2)}")
            best = found if best is None or found > best else best
    return best[2] if best else None


def export_files(repo: Path, commit: str, dest: Path, wanted: Callable[[str], bool]) -> None:
    """Copy the files of `commit` whose paths `wanted` accepts into `dest` (no checkout)."""
    for name in git(repo, "ls-tree", "-r", "-z", "--name-only", commit).split("\0"):
        if name and wanted(name):
            with suppress(GitError):
                door.write_bytes(dest, name, git_bytes(repo, "show", f"{commit}:{name}"))

"""A PR's unified diff from its files' patches, completed from GitHub's `.diff` when needed."""

from __future__ import annotations

from collections.abc import Callable

from github import GithubException

from app.github.models import PullFile
from app.github.retries import is_transient


def pull_diff(files: list[PullFile]) -> str:
    """A unified diff of a PR assembled from its files' patches (binary files have none)."""
    parts: list[str] = []
    for f in files:
        if f.patch is None:
            continue
        old = f.previous_filename or f.filename
        a = "/dev/null" if f.status == "added" else f"a/{old}"
        b = "/dev/null" if f.status == "removed" else f"b/{f.filename}"
        patch = f.patch if f.patch.endswith("\n") else f.patch + "\n"
        header = f"diff --git a/{old} b/{f.filename}\n"
        # git apply needs the creation or deletion declared (it reads `/dev/null` as a path
        # otherwise); the files API does not give modes, and 100644 is by far the commonest.
        if f.status == "added":
            header += "new file mode 100644\n"
        elif f.status == "removed":
            header += "deleted file mode 100644\n"
        elif old != f.filename:
            header += f"rename from {old}\nrename to {f.filename}\n"
        parts.append(f"{header}--- {a}\n+++ {b}\n{patch}")
    return "".join(parts)


def complete_pull_diff(
    files: list[PullFile], full_diff: Callable[[], str]
) -> tuple[str, list[str]]:
    """A PR's diff from its files, and the text files it still lacks.

    The files API leaves out the patch of a file too large to show; then `full_diff` (the
    PR's `.diff`, which has every file) is asked for. When GitHub refuses that too (a very
    large PR), the files' diff comes back with the names of the files missing from it.
    """
    missing = [f.filename for f in files if f.patch is None and f.changes > 0]
    if not missing:
        return pull_diff(files), []
    try:
        return full_diff(), []
    except GithubException as exc:
        if is_transient(exc):
            raise
        return pull_diff(files), missing


def exact_pull_diff(
    full_diff: Callable[[], str], files: Callable[[], list[PullFile]]
) -> tuple[str, list[str]]:
    """A PR's diff in git's own format, and the files it lacks.

    The PR's `.diff` is git's own output (new, deleted, renamed and mode-changed files declared
    as `git apply` needs them), so it is asked for first. Only when GitHub refuses it (a very
    large PR) is the diff rebuilt from the files API, where binary and oversized files have no
    patch: those come back as missing.
    """
    try:
        return full_diff(), []
    except GithubException as exc:
        if is_transient(exc):
            raise
    listed = files()
    missing = [f.filename for f in listed if f.patch is None and f.status != "renamed"]
    return pull_diff(listed), missing

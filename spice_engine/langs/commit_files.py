"""A commit's files read from the repository's objects: what a language sees before any checkout."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from spice_engine.validate.gitwork import GitError, git


class CommitFiles:
    """`Files` of `commit` in `git_dir` (the host's git, explicit git dir, no work tree)."""

    def __init__(self, git_dir: Path, commit: str) -> None:
        self.git_dir, self.commit = git_dir, commit

    @cached_property
    def _paths(self) -> list[str]:
        out = git(self.git_dir, "ls-tree", "-r", "-z", "--name-only", self.commit)
        return sorted(p for p in out.split("\0") if p)

    def paths(self) -> list[str]:
        return self._paths

    def text(self, path: str) -> str | None:
        try:
            return git(self.git_dir, "cat-file", "-p", f"{self.commit}:{path}")
        except GitError:
            return None

    def changed(self) -> list[str]:
        return []

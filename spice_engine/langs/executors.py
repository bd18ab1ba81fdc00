"""The executor for each language, all over one sandbox and one environments folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spice_engine.langs import language_of, languages
from spice_engine.langs.commit_files import CommitFiles
from spice_engine.langs.executor import ToolchainExecutor
from spice_engine.validate.executor import Executor
from spice_engine.validate.gitwork import GitError
from spice_engine.validate.sandbox import Sandbox


class Executors:
    """Python's recipes on `python` (spice_engine.validate.local), every other language on a
    `ToolchainExecutor` made on first use, under `envs_dir`, in `sandbox`."""

    def __init__(self, python: Executor, envs_dir: Path, sandbox: Sandbox) -> None:
        self.python, self.envs_dir, self.sandbox = python, envs_dir, sandbox
        self._made: dict[str, Executor] = {"python": python}

    def of(self, language: str) -> Executor:
        if language not in self._made:
            known = languages()[language]
            self._made[language] = ToolchainExecutor(known, self.envs_dir, self.sandbox)
        return self._made[language]


def language_at(git_dir: Path, commit: str) -> str:
    """The language of the project at `commit` (Python when the commit cannot be read: the
    session then says what is wrong with it)."""
    try:
        return language_of(CommitFiles(git_dir, commit)).name
    except GitError:
        return "python"


def row_languages(
    rows: list[dict[str, Any]], git_dirs: dict[str, Path], executor: object
) -> dict[str, str]:
    """Instance id -> its language, for rows whose repository is given; none when `executor`
    is a bare Python one (then every row is Python's)."""
    if not isinstance(executor, Executors):
        return {}
    return {
        str(r.get("instance_id")): language_at(git_dirs[str(r["repo"])], str(r.get("base_commit")))
        for r in rows
        if str(r.get("repo")) in git_dirs
    }

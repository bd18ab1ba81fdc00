"""Where tests run: the `Executor` seam, and the run of one command with a time limit."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from spice_engine.langs.base import Plan
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.recipe import Recipe
from spice_engine.validate.tree import Tree

SetupTree = Callable[[], AbstractContextManager[Tree]]
"""Opens a worktree of an environment's own commit (its `environment_setup_commit`)."""


class EnvBuildError(RuntimeError):
    """The environment could not be built; the message ends with the tool's own output."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log
        """The failing tool's whole output (what a retry reads; the message holds an excerpt)."""


class Prepared(BaseModel):
    """An environment ready for one job's worktree."""

    key: str
    python: Path
    built: bool
    """True when this call built the shared environment (a cold start)."""
    seconds: float
    plan: Plan | None = None
    """A language other than Python: what its environment was built from."""


class RunResult(BaseModel):
    log: str
    returncode: int | None
    seconds: float
    killed: str | None = None
    """Why the sandbox stopped the command early (`timeout`, low disk, no progress for its
    idle limit), if it did."""
    channel: str = ""
    """What the command's plugin sent through the channel (`sandbox.channel_command`)."""

    @property
    def timed_out(self) -> bool:
        return self.killed == "timeout"


class Executor(Protocol):
    """Builds (or reuses) an environment and runs a job's commands in it."""

    def prepare(
        self,
        repo: str,
        version: str,
        recipe: Recipe,
        tree: Tree,
        job: Path,
        setup_tree: SetupTree | None = None,
    ) -> Prepared:
        """Make the environment for `tree` (a worktree), using `job` as scratch space. A shared
        environment not built yet is built from `setup_tree()` (a worktree of the
        environment's own commit) when given, else from `tree`."""
        ...

    def run(
        self,
        prepared: Prepared,
        tree: Tree,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
    ) -> RunResult:
        """Run the test command with `args` in `tree`; with a `plugin`, loading that pytest
        plugin from its (read-only) folder, its messages in `RunResult.channel`."""
        ...

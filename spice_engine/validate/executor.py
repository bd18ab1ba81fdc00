"""Where tests run: the `Executor` seam, and the run of one command with a time limit."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from spice_engine.validate.recipe import Recipe

RERUN_PLUGIN = "_spice_rerun"
"""The module name the in-session rerun plugin (`rerun_plugin.py`) is loaded under."""


SetupTree = Callable[[], AbstractContextManager[Path]]
"""Opens a worktree of an environment's own commit (its `environment_setup_commit`)."""


class EnvBuildError(RuntimeError):
    """The environment could not be built; the message ends with the tool's own output."""


class Prepared(BaseModel):
    """An environment ready for one job's worktree."""

    key: str
    python: Path
    built: bool
    """True when this call built the shared environment (a cold start)."""
    seconds: float


class RunResult(BaseModel):
    log: str
    returncode: int | None
    seconds: float
    killed: str | None = None
    """Why the sandbox stopped the command early (`timeout`, low disk), if it did."""

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
        tree: Path,
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
        tree: Path,
        args: list[str],
        timeout_s: float,
        rerun_dir: Path | None = None,
        plugin: str = RERUN_PLUGIN,
    ) -> RunResult:
        """Run the test command with `args` in `tree`.

        With `rerun_dir` (holding `{plugin}.py`, by default `_spice_rerun.py`), the run loads
        that pytest plugin, which reads and writes its files there.
        """
        ...

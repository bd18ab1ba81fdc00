"""Where tests run: the `Executor` seam, and the run of one command with a time limit."""

from __future__ import annotations

import os
import signal
import subprocess
import time
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
    timed_out: bool = False
    killed: str | None = None
    """Why the sandbox stopped the command early (`timeout`, low disk), if it did."""


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
    ) -> RunResult:
        """Run the test command with `args` in `tree`.

        With `rerun_dir` (holding `_spice_rerun.py`), the run loads that pytest plugin, which
        reads and writes its files there.
        """
        ...


def run_command(
    cmd: list[str], cwd: Path, env: dict[str, str], timeout_s: float, tail: int = 0
) -> RunResult:
    """Run `cmd`; on timeout its whole process group is killed (nothing is left running)."""
    started = time.monotonic()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        timed_out = True
    log = out[-tail:] if tail else out
    return RunResult(
        log=log,
        returncode=None if timed_out else proc.returncode,
        seconds=round(time.monotonic() - started, 3),
        timed_out=timed_out,
    )


def clean_env(extra: dict[str, str], venv: Path | None = None) -> dict[str, str]:
    """The process environment without anything that would leak our own Python into a run."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS", "PYTHONSTARTUP"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update({"PY_COLORS": "0", "COLUMNS": "240", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env

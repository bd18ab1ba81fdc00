"""What running a command gives back, and how an environment's build fails."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from pydantic import BaseModel

from spice_engine.validate.tree import Tree

SetupTree = Callable[[], AbstractContextManager[Tree]]
"""Opens a worktree of an environment's own commit (its `environment_setup_commit`)."""


class EnvBuildError(RuntimeError):
    """The environment could not be built; the message ends with the tool's own output."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log
        """The failing tool's whole output (what a retry reads; the message holds an excerpt)."""


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

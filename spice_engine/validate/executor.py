"""What running a command gives back, and how an environment's build fails."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from pydantic import BaseModel

from spice_engine.validate.tree import Tree


class SetupTree(Protocol):
    """Opens a tree of what an environment is made from (its `environment_setup_commit`, or the
    base commit with the patches); `files=False`: the host's record of it alone, no file
    written out (what planning reads, before anything is built)."""

    def __call__(self, files: bool = True) -> AbstractContextManager[Tree]: ...


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

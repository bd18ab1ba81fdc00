"""What the executor is asked for (an environment for a job) and what it gives back."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from spice_engine.langs.base import Plan
from spice_engine.langs.python_recipe import Recipe


class EnvRequest(BaseModel):
    """The environment a job needs, as the planner worked it out."""

    model_config = ConfigDict(frozen=True)

    repo: str
    language: str
    version: str = ""
    recipe: Recipe | None = None
    """Python's recipe (the planner's, by version); the other languages plan from the tree."""


class Prepared(BaseModel):
    """An environment ready for one job's worktree."""

    model_config = ConfigDict(frozen=True)

    key: str
    job: Path
    """The job's scratch (its home, temporary files, Python's venv)."""
    built: bool
    """True when this call built the shared environment (a cold start)."""
    seconds: float
    plan: Plan
    """What the environment is, as values: its key, toolchain, the test command's needs."""

"""The executor the App's workers run an instance's tests with.

Apart from `app.sandboxing`, which the web process imports for its health check: a web
worker only enqueues, and loads no language's environments."""

from __future__ import annotations

from app.sandboxing import sandbox_for
from app.settings import Settings
from spice_engine.langs.executor import Executor


def executor_for(settings: Settings) -> Executor:
    """Where the App's workers run an instance's tests, in every language: the data folder's
    environments and the bubblewrap sandbox (what `spice validate` uses too)."""
    return Executor(settings.data_dir.resolve() / "envs", sandbox_for(settings))

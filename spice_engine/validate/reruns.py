"""The in-session flakiness reruns: a directory holding the pytest plugin for one run, and what
the plugin found there afterwards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from pydantic import BaseModel, ValidationError

from spice_engine.validate.executor import RERUN_PLUGIN

_PLUGIN_SOURCE = Path(__file__).with_name("rerun_plugin.py")


class Again(BaseModel):
    """Second outcomes of the tests the plugin reran, and the time those reruns took."""

    outcomes: dict[str, str]
    seconds: float


def plugin_dir(where: Path, budget_s: float, passed_before: list[str] | None = None) -> Path:
    """A directory for one run: the plugin, the seconds it may spend rerunning, and for the
    after-run the tests that passed before (the before-run reruns every failing test)."""
    where.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_PLUGIN_SOURCE, where / f"{RERUN_PLUGIN}.py")
    settings = {"budget_s": budget_s, "passed_before": passed_before}
    (where / "settings.json").write_text(json.dumps(settings))
    return where


def read_again(where: Path | None) -> Again | None:
    """What the plugin wrote; None when it did not run (an old pytest, a crash, a timeout)."""
    path = where / "again.json" if where else None
    if path is None or not path.is_file():
        return None
    try:
        return Again.model_validate_json(path.read_text())
    except (ValidationError, OSError):
        return None

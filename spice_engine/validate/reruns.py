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


def plugin_dir(where: Path, passed_before: list[str] | None = None) -> Path:
    """A directory for one run: the plugin, and for the after-run the tests that passed before."""
    where.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_PLUGIN_SOURCE, where / f"{RERUN_PLUGIN}.py")
    if passed_before is not None:
        (where / "passed_before.json").write_text(json.dumps(sorted(passed_before)))
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

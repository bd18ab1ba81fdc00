"""The in-session flakiness reruns: the pytest plugin for one run, and what it sent back."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from spice_engine.validate.outcomes import Outcomes

RERUN_PLUGIN = "_spice_rerun"
"""The module name the in-session rerun plugin (`rerun_plugin.py`) is loaded under."""
PLUGIN_SOURCE = Path(__file__).with_name("rerun_plugin.py")


class Again(BaseModel):
    """Second outcomes of the tests the plugin reran, and the time those reruns took."""

    outcomes: Outcomes
    seconds: float


def settings(budget_s: float, passed_before: list[str] | None = None) -> dict[str, object]:
    """The plugin's settings for one run: the seconds it may spend rerunning, and for the
    after-run the tests that passed before (the before-run reruns every failing test)."""
    return {"budget_s": budget_s, "passed_before": passed_before}


def only(tests: list[str]) -> dict[str, object]:
    """Settings for a run of exactly `tests` (chosen by id inside pytest), rerunning none."""
    return {"budget_s": 0.0, "passed_before": None, "select": tests}


def files_of(tests: list[str]) -> list[str]:
    """The files holding `tests` (node ids), in order."""
    return list(dict.fromkeys(t.split("::", 1)[0] for t in tests))


def read_again(messages: list[dict[str, object]]) -> Again | None:
    """What the plugin sent; None when it did not get there (an old pytest, a crash, a
    timeout) or sent something else."""
    for message in messages:
        if message.get("kind") == "again":
            try:
                return Again.model_validate(message)
            except ValidationError:
                return None
    return None

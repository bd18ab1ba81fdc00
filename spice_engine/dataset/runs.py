"""Each test's status in a validation's runs before and after the fix, read back from the logs
the validation kept (`spice.validation.logs`), the way the session read them."""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from spice_engine.errors import InputError
from spice_engine.langs import FALLBACK, languages
from spice_engine.langs.base import Plan, Toolchain
from spice_engine.langs.python_env import LOG_PARSER
from spice_engine.validate.outcomes import Outcomes, TestStatus


class LogsMissing(InputError):
    """A validation's run logs are not where its record says (not kept, or pruned)."""


class TestRuns(BaseModel):
    """Test id -> status, without the fix (test patch applied) and with it."""

    __test__ = False  # not a test class, whatever pytest makes of its name

    before: Outcomes = Field(default_factory=dict)
    after: Outcomes = Field(default_factory=dict)


def grouped(outcomes: Outcomes) -> dict[str, list[str]]:
    """Status -> sorted ids, every status present: a fixed shape for JSON, Arrow and Parquet."""
    found: dict[str, list[str]] = {status.value: [] for status in TestStatus}
    for test, status in sorted(outcomes.items()):
        found[status.value].append(test)
    return found


def ungrouped(groups: Mapping[str, list[str]]) -> Outcomes:
    return {test: TestStatus(status) for status, tests in groups.items() for test in tests}


def runs_of(validation: Mapping[str, Any]) -> TestRuns:
    """The runs as recorded on the row (`test_runs`), else read from its kept logs."""
    if isinstance(recorded := validation.get("test_runs"), Mapping):
        return TestRuns(before=ungrouped(recorded["before"]), after=ungrouped(recorded["after"]))
    return read_runs(validation)


def read_runs(validation: Mapping[str, Any]) -> TestRuns:
    """Both runs' outcomes from the logs folder; LogsMissing when it is not there."""
    folder = Path(str(validation.get("logs") or ""))
    if not validation.get("logs") or not (folder / "after.log.gz").is_file():
        raise LogsMissing(f"no run logs at {folder} (validate again with logs kept)")
    return TestRuns(
        before=_outcomes(folder, "before", validation), after=_outcomes(folder, "after", validation)
    )


def _outcomes(folder: Path, run: str, validation: Mapping[str, Any]) -> Outcomes:
    log = _text(folder / f"{run}.log.gz")
    language = languages()[str(validation.get("language") or FALLBACK)]
    # The results as the run's language read them: its channel (kept beside the log when it
    # carried results), its log, and its environment's plan (a runner's log parser).
    return language.outcomes(_text(folder / f"{run}.results.gz"), log, recorded_plan(validation))


def recorded_plan(validation: Mapping[str, Any]) -> Plan | None:
    """The environment's plan as the validation recorded it (None: recorded before plans
    were; a recipe's log parser then stands for what its plan would say)."""
    if validation.get("plan"):
        return Plan.model_validate(validation["plan"])
    recipe = validation.get("recipe") or {}
    if not recipe.get("log_parser"):
        return None
    settings = {LOG_PARSER: str(recipe["log_parser"])}
    return Plan(language=FALLBACK, toolchain=Toolchain(name=""), key=(), settings=settings)


def _text(path: Path) -> str:
    if not path.is_file():
        return ""
    return gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")

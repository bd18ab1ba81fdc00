"""What a validation records and the small pieces its runs share: the files a run is given,
and how a run's end reads (its outcomes, or why the sandbox cut it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from spice_engine.langs import FALLBACK, languages
from spice_engine.langs.capabilities import judged_targets
from spice_engine.runs.session import Job, Run, Status, Stopped
from spice_engine.validate.outcomes import Accounting, Outcomes

Progress = Callable[[str], None]
"""Told each phase as it starts: minutes pass in each."""


class Validation(BaseModel):
    """What `spice.validation` records for an instance."""

    status: Status
    detail: str = ""
    language: str = FALLBACK
    toolchain: str | None = None
    """The toolchain the environment was built with (`go1.26.8`, `python3.9`)."""
    test_command: list[str] | None = None
    """The test command for the test files, as run in its sandbox."""
    plan: dict[str, object] | None = None
    """The environment as values (spice_engine.langs.base.Plan: toolchain, install, key,
    settings): what rebuilds it without reading the tree again."""
    left_out: dict[str, str] = Field(default_factory=dict)
    """Parts of the project the environment could not build here, each with why (a Maven
    module whose plugin cannot run here): the tests ran without them."""
    python: str | None = None
    recipe: dict[str, object] | None = None
    environment: str | None = None
    environment_built: bool = False
    durations: dict[str, float] = Field(default_factory=dict)
    flaky: list[str] = Field(default_factory=list)
    reruns: Literal["in_session", "new_processes", "off"] = "off"
    """How the fail-to-pass tests were run a second time (to tell flaky ones)."""
    not_rerun: list[str] = Field(default_factory=list)
    """Fail-to-pass tests no second run ran (a crash, a timeout, a runner that could not
    name them): whether they are flaky is unknown."""
    test_files: list[str] = Field(default_factory=list)
    tests: Accounting | None = None
    """Where every test seen in the logs went (counts, and the tests in neither list)."""
    logs: str | None = None
    """Directory holding this instance's run logs (`before.log.gz`, `after.log.gz`, ...)."""


class Validated(BaseModel):
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    validation: Validation


def left_out_line(left_out: dict[str, str]) -> str:
    """The detail's line naming what the environment left out ("" when nothing)."""
    if not left_out:
        return ""
    return "left out: " + ", ".join(f"{part} ({why})" for part, why in sorted(left_out.items()))


def test_files(test_patch: str) -> list[str]:
    """The files the test patch leaves in place (SWE-bench runs the files it touches); the
    language picks its targets among them (spice_engine.langs.base.Language.test_command)."""
    from unidiff import PatchSet

    return [f.path for f in PatchSet(test_patch) if not f.is_removed_file]


def run_targets(job: Job) -> list[str]:
    """What a run is given: the test files the language runs; a language that runs a
    package's or module's tests together (a compiled one) also gets the fix's files, whose own
    tests are the fix's first tests."""
    return languages()[job.language].targets(test_files(job.test_patch), test_files(job.patch))


def judged_run_targets(job: Job) -> list[str]:
    """What a run judging a wrong fix is given: `run_targets`, or less where the language runs
    only the judged tests' files then (spice_engine.langs.capabilities.NarrowRuns)."""
    language = languages()[job.language]
    return judged_targets(language, test_files(job.test_patch), test_files(job.patch))


def ended(run: Run, name: str, timeout_s: float) -> Outcomes:
    """The run's outcomes, or Stopped when the sandbox cut it short."""
    if run.timed_out:
        raise Stopped(Status.TIMEOUT, f"{name} run passed {timeout_s:.0f} s")
    if run.killed:
        raise Stopped(Status.RESOURCE_LIMIT, f"{name} run stopped by the sandbox: {run.killed}")
    return run.outcomes

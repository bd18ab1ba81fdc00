"""What `spice.test_strength` records for an instance, and the settings of one measurement."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from spice_engine.validate.session import Status


class StrengthConfig(BaseModel):
    """Bounds of one instance's measurement."""

    max_mutants: int = 30
    """Mutants tried at most (spread over the changed lines when there are more)."""
    budget_s: float = 900.0
    """Seconds for the whole instance after its environment is ready; what is left undone is
    counted as not run."""
    per_test_s: float = 20.0
    """One test's time limit under a mutant (a mutant that makes it loop is killed by it)."""
    confirm_survivors: int = 5
    """Survivors re-run with their plain source in a process of their own (a survivor of the
    shared session could be an artefact of state the session kept)."""
    ablation: bool = True


class MutantOutcome(BaseModel):
    path: str
    line: int
    function: str | None = None
    operator: str
    change: str
    """What the mutant changes, e.g. "`< b` → `<= b`"."""
    diff: str
    """The mutant as a diff against the fixed file."""
    killed_by: str | None = None
    """The first test that failed under it (None: it survived)."""
    run: Literal["session", "process"] = "session"
    """Switched on inside the shared test session, or run in a process of its own."""


class UntestedPart(BaseModel):
    path: str
    hunk: int | None = None
    header: str


class TestStrength(BaseModel):
    """How strongly the instance's tests pin its fix down."""

    __test__ = False  # not a test class, whatever pytest makes of its name

    status: Status
    detail: str = ""
    tests: int = 0
    """Tests the mutants were judged by (fail-to-pass and the touched files' pass-to-pass)."""
    mutants_tried: int = 0
    mutants_killed: int = 0
    score: float | None = None
    """Killed / tried (None when nothing was tried)."""
    equivalent_skipped: int = 0
    not_run: int = 0
    """Mutants chosen but left undone by the time budget."""
    parts_checked: int = 0
    untested: list[UntestedPart] = Field(default_factory=list)
    """Parts of the fix no fail-to-pass test needs (they pass without it)."""
    mutants: list[MutantOutcome] = Field(default_factory=list)
    durations: dict[str, float] = Field(default_factory=dict)

    @property
    def survivors(self) -> list[MutantOutcome]:
        return [m for m in self.mutants if m.killed_by is None]

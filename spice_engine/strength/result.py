"""What `spice.test_strength` records for an instance."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from spice_engine.runs.session import Status
from spice_engine.strength.config import StrengthConfig


class Verdict(StrEnum):
    """A mutant's outcome (STYLE.md 18: outcomes are types)."""

    KILLED = "killed"
    """A judged test failed under it: `killed_by` names that test."""
    SURVIVED = "survived"
    """Every judged test passed under it: a wrong fix the tests accept."""
    EQUIVALENT = "equivalent"
    """Proven to behave as the fix (`reason` says how): not a wrong fix."""
    NOT_RUN = "not_run"
    """No verdict (`reason` says why: the budget, a run cut off, a crashed session)."""


CRASHING = {"return replaced", "statement removed", "argument removed"}
"""Operators whose wrong fixes mostly raise somewhere or leave a value unset (a None returned, a
name never bound): weaker evidence of a gap than a changed value or condition, and never the
example a reviewer is shown unless a written test catches it."""
NAMING = {"string", "arguments swapped"}
"""Operators whose wrong fixes often rename or reorder what only a name or a set reads (a key,
a candidate among others): weaker than a changed value or condition, stronger than a crash."""


def evidence(operator: str) -> int:
    """0 for a changed value or condition (a guard removed included), 1 naming, 2 crashing."""
    return 2 if operator in CRASHING else 1 if operator in NAMING else 0


Reached = Literal["not_executed", "executed_unchecked"]
DifferenceIn = Literal["returned", "stored"]
"""What of a call a differential run saw differ: what it returned or raised (or how often it
was called), or only the state it left its arguments in."""
Difference = Literal["tests", "nearby", "issue"]
"""Where a survivor was seen to differ from the fix: its differential run, on the tests' own
inputs or on inputs next to them (spice_engine.strength.replay_support); or what the issue's
own example prints (spice_engine.strength.issue_examples)."""


class ModuleState(BaseModel):
    """What a module imported with a survivor holds where the fix's holds otherwise: the first
    line of each that the other lacks (spice_engine.strength.import_states)."""

    module: str
    fix: str
    survivor: str


class IssueExample(BaseModel):
    """The first statement of the issue's example that prints otherwise under a survivor than
    under the fix (spice_engine.strength.issue_examples), and what each printed."""

    statement: str = ""
    fix: str
    survivor: str
    near: bool = False
    """The statement is the issue's command with one argument left out, not one it gives
    (spice_engine.strength.shell_neighbours)."""


class CatchingTest(BaseModel):
    """A test a model wrote that passes on the fix and fails on the survivor, both proven by
    running it in the sandbox."""

    path: str
    code: str
    failure: str = ""
    """How it fails on the survivor: the failing test's id and its runner's first line why."""
    fence: str = "python"
    """Its language, as a code block names it (rows stored before other languages: Python)."""


OLD_PROSE = ("the test session crashed", "the run was stopped")
"""What `killed_by` held before verdicts were typed, where no test failed."""


class MutantOutcome(BaseModel):
    @model_validator(mode="before")
    @classmethod
    def _typed(cls, data: Any) -> Any:
        """A result stored before verdicts were typed: its verdict read from `killed_by`, and
        its prose there (no test failed) a `not_run` with that reason."""
        if not isinstance(data, dict) or "verdict" in data:
            return data
        killer = data.get("killed_by")
        if isinstance(killer, str) and killer.startswith(OLD_PROSE):
            return data | {"verdict": "not_run", "killed_by": None, "reason": killer}
        return data | {"verdict": "survived" if killer is None else "killed"}

    path: str
    line: int
    function: str | None = None
    operator: str
    change: str
    """What the mutant changes, e.g. "`< b` → `<= b`"."""
    diff: str
    """The mutant as a diff against the fixed file."""
    verdict: Verdict = Verdict.SURVIVED
    killed_by: str | None = None
    """The judged test that failed under it: only ever a test id (set iff `killed`)."""
    reason: str = ""
    """Why `not_run` or `equivalent`."""
    run: Literal["session", "process", "none"] = "session"
    """Switched on inside the shared test session, run in a process of its own, or never run."""
    reached: Reached | None = None
    """For a survivor: no judged test executes its line, or one does but none checks it (None:
    not known, e.g. code run at import, or a line no probe could be placed before)."""
    difference: Difference | None = None
    """For a survivor, where its differential run saw it change what its function returns or
    leaves behind: on the tests' own inputs, or on inputs next to them (None: not seen, or
    no differential run: code run at import, a line no test executes, the budget)."""
    difference_in: DifferenceIn | None = None
    """What of its function's calls differed ("stored": only what it left behind, e.g. a
    string kept in a registry, not yet compared with anything)."""
    by_fail_to_pass: bool = False
    """A FAIL_TO_PASS test executes its line (what the issue is about)."""
    rank: int = 0
    """Among survivors, 1 = the most telling (0: not a survivor)."""
    catching_test: CatchingTest | None = None
    issue_example: IssueExample | None = None
    """Where `difference` is "issue": what the issue's example prints under it and the fix."""
    module_state: ModuleState | None = None
    """For a survivor in code run at import: what its module holds, imported with it, where
    the fix's holds otherwise."""
    through: str = ""
    """For a call left out, the parameter it went through (spice_engine.strength
    .parameter_calls): the code its caller gave, never run under the mutant."""
    possibly_equivalent: bool = False
    """A model was asked for a test that tells it from the fix and none held: not a headline."""
    unconfirmed: str = ""
    """For a Python survivor, why nothing shows a caller could see it (its differential run
    could not say, or none was made: code run at import): not shown as a wrong fix unless a
    written test catches it."""

    @property
    def shown(self) -> bool:
        """A survivor shown as a wrong fix the tests accept: a written test catches it, or the
        issue's own example prints otherwise under it, or a judged test executes its line and
        its differential run saw it differ (in a language without one, a judged test executes
        it, or no probe could say). A line no test executes is otherwise not a claim about
        behaviour: it is shown as such (`untested_line`), not as a wrong fix."""
        if self.verdict != Verdict.SURVIVED or self.possibly_equivalent:
            return False
        if self.catching_test is not None or self.difference == "issue":
            return True
        return not self.unconfirmed and self.reached != "not_executed"

    @property
    def untested_line(self) -> bool:
        """A survivor on a line no judged test executes (and no written test catches)."""
        return (
            self.verdict == Verdict.SURVIVED
            and self.reached == "not_executed"
            and self.catching_test is None
            and self.difference != "issue"
        )

    @property
    def telling(self) -> bool:
        """Fit to be the example a reviewer is shown: caught by a written test, or shown as a
        wrong fix that changes a value or a condition, or a name whose change reached what its
        function returns; not one removing a line or returning None (those are listed, not
        the example: often what they break is a value no caller reads) unless what its
        function answered on the tests' own inputs was seen to differ."""
        if self.catching_test is not None or self.difference == "issue":
            return self.shown  # what the reporter's own example prints, or a written test
        tier = evidence(self.operator)
        # A renamed string or swapped arguments seen only in what was stored (sphinx-7268's
        # ENUM candidates) is a name kept, not yet one compared with anything a user gives.
        # A line removed whose function answered otherwise on the tests' own inputs broke
        # what a caller gets (go-zero-2283's CORS router never installed): 10 of 11 judged
        # genuine, in Go and Python, the other a blank line after a JSON value.
        # So did a call left out that went through what the caller gave (go-zero-2363's
        # middleware never calling `next`): the caller's own code is what it skips.
        removed_seen = tier == 2 and (self.difference == "tests" or bool(self.through))
        return self.shown and (
            tier == 0 or (tier == 1 and self.difference_in != "stored") or removed_seen
        )


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
    """Mutants judged: killed or survived."""
    mutants_killed: int = 0
    score: float | None = None
    """Killed / judged (None when none was judged); equivalent and not-run mutants count in
    neither."""
    equivalent_skipped: int = 0
    """Mutants set aside before any run: the same text as the fix or as another mutant, and
    those proven equivalent (these listed, as `equivalent` with the proof, in `mutants`)."""
    not_run: int = 0
    """Mutants chosen but left without a verdict (listed as `not_run`, with the reason)."""
    parts_checked: int = 0
    parts_total: int = 0
    """Parts of the fix that could be left out (`parts_checked` < this: the budget cut the
    hunk check)."""
    needs_network: int = 0
    """Tests failing before and after the fix for want of the network (the validation's count):
    in neither list, so no mutant is judged by them."""
    untested: list[UntestedPart] = Field(default_factory=list)
    """Parts of the fix no fail-to-pass test needs (they pass without it)."""
    skipped: list[str] = Field(default_factory=list)
    """What the budget (or a limit) cut, said plainly: e.g. "hunk check skipped: budget"."""
    mutants: list[MutantOutcome] = Field(default_factory=list)
    written_by: str = ""
    """The model and prompt (id and version) that wrote the catching tests ("": none asked)."""
    durations: dict[str, float] = Field(default_factory=dict)

    @property
    def survivors(self) -> list[MutantOutcome]:
        """Survivors, the most telling first."""
        found = [m for m in self.mutants if m.verdict == Verdict.SURVIVED]
        return sorted(found, key=lambda m: m.rank or len(self.mutants) + 1)

    @property
    def headline(self) -> MutantOutcome | None:
        """The survivor a reviewer is shown: the top-ranked telling one (None: none is)."""
        return next((m for m in self.survivors if m.telling), None)

    def say_budget(self, config: StrengthConfig) -> None:
        """When the budget cut something and was less than `budget_s` (a multiple of the
        validation), what it was, said beside what it cut."""
        cut = self.not_run or any("budget" in s for s in self.skipped)
        if cut and config.budget() < config.budget_s:
            self.skipped.append(f"the budget was {config.budget_said()}")

    def tally(self) -> None:
        """Counts and score from the verdicts (judged mutants only)."""
        of = [m.verdict for m in self.mutants]
        self.mutants_killed = of.count(Verdict.KILLED)
        self.mutants_tried = self.mutants_killed + of.count(Verdict.SURVIVED)
        self.not_run = of.count(Verdict.NOT_RUN)
        judged = self.mutants_tried
        self.score = round(self.mutants_killed / judged, 4) if judged else None

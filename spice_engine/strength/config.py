"""The settings of one instance's test-strength measurement (spice_engine.strength.measure)."""

from __future__ import annotations

from pydantic import BaseModel


class StrengthConfig(BaseModel):
    """Bounds of one instance's measurement."""

    max_mutants: int = 30
    """Mutants tried at most (spread over the changed lines when there are more)."""
    budget_s: float = 900.0
    """Seconds for the whole instance, preparing its environment included; what is left
    undone is counted as not run."""
    validation_s: float | None = None
    """This instance's validation, less its environment (its test runs), when known: the
    measurement then gets at most `times_validation` of it (never under `floor_s`)."""
    times_validation: float = 3.0
    """What an instance costs at most, in its own validations: the measure's promise (issue 49:
    ≤ 3× median); what it cuts is `not_run` or held, never a kill."""
    floor_s: float = 15.0
    """What a quick instance gets however quick its validation: a session's start, the fix's own
    run and a survivor's confirmation take seconds whatever the tests (a ceiling of 6× its
    validation left the App's small projects, validated in 1–2 s, no mutant at all)."""

    def budget(self) -> float:
        """Seconds for the whole measurement (its environment included): `budget_s`, or less
        for a quick instance, so a measurement costs a bounded multiple of its own
        validation."""
        if not self.validation_s or self.validation_s < 0:  # none known (a row said 0 s)
            return self.budget_s
        return min(self.budget_s, max(self.floor_s, self.times_validation * self.validation_s))

    def deadline_s(self) -> float:
        """When the work stops, counted from the start: the budget less what ending the
        session takes after it (its last run stopped, its tree put away: 0.5–2 s measured
        over, at 3×), so the whole measure stays within its budget."""
        budget = self.budget()
        return budget - max(1.0, 0.01 * budget)

    def budget_said(self) -> str:
        """The budget in words, for what it cut (e.g. "18 s: 3× the validation's 6 s")."""
        budget, runs = self.budget(), self.validation_s or 0.0
        if budget == self.budget_s:
            return f"{self.budget_s:.0f} s"
        of = f"the validation's {runs:.0f} s of test runs"
        if budget > self.times_validation * runs:
            return f"{budget:.0f} s: the least a measure gets ({budget / runs:.1f}× {of})"
        return f"{budget:.0f} s: {self.times_validation:g}× {of}"

    per_test_s: float = 20.0
    """One test's time limit under a mutant (a mutant that makes it loop is killed by it)."""
    run_slack_s: float = 30.0
    """Without our plugins, a whole run under a mutant or a probe is stopped (`not_run`) after
    3× the fix's own run and this long more (its build), or after `validation_s` when that is
    longer."""
    confirm_survivors: int = 5
    """Survivors of the shared session re-run alone, in rank order (a survivor of the shared
    session could be an artefact of state the session kept); the others keep the session's
    verdict, marked `run: session`."""
    ablation: bool = True
    catching_tests: int = 2
    """Top survivors a model is asked to write a catching test for (0: none; needs a model)."""

"""A mutant's verdict from one whole run of its tests: killed by a judged test that ran and
failed, or that the same run of the fix reports and the mutant's run ended before; a judged
test the run has no result for is otherwise no kill but `not_run`.

Why absence is not failure here (SWE-bench's grading counts a missing test as failed): runs
lose tests for reasons of their own. An old pytest whose `-rA` prints no PASSED lines
(xarray-3305 got pytest 3.5.1: "all 11 mutants caught" while 4 pass the whole file): the fix's
own run shows no result either. A test file that no longer collects under the mutant (its
import fails), a compiled language's build that fails: a mutant that does not load or compile
is no wrong fix a reviewer could merge, nor one a test rejected. A run the sandbox or the
budget cut. What remains is a process the mutant ended (`os._exit`, a crash) with a runner
that reports a file failing to load as such (pytest): a run of it with no result at all died
under the mutant, and the tests the fix's run reported were the ones it ended.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from spice_engine.runs.session import Run
from spice_engine.strength.result import Verdict
from spice_engine.validate.outcomes import Outcomes, TestStatus, passed

UNBUILT = "its tests did not run: the mutant does not build (its run reported no test)"


class RunVerdict(BaseModel):
    """What one run says of the mutant it ran under."""

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    killed_by: str | None = None
    """The judged test that failed (set iff `killed`)."""
    reason: str = ""
    """Why `not_run`."""


def run_verdict(
    done: Run, judged: list[str], budget_gone: bool, control: Outcomes, died_is_kill: bool
) -> RunVerdict:
    """The verdict of a run of `judged` under a mutant (`budget_gone`: the deadline had passed
    when the run ended, so a cut run was the budget's). `control`: the same run of the fix;
    `died_is_kill`: a run that reports no test at all is a process the mutant ended (a runner
    that reports a file that fails to collect as such), not a build that failed."""
    if done.killed:
        cut = "the time budget" if budget_gone else f"its run was stopped ({done.killed})"
        return RunVerdict(verdict=Verdict.NOT_RUN, reason=f"cut off: {cut}")
    results = done.outcomes
    failed = (t for t in judged if results.get(t, TestStatus.PASSED) != TestStatus.PASSED)
    if (killer := next(failed, None)) is not None:
        return RunVerdict(verdict=Verdict.KILLED, killed_by=killer)
    missing = [t for t in judged if t not in results]
    if not missing:
        return RunVerdict(verdict=Verdict.SURVIVED)
    lost = [t for t in missing if passed(control, t)]
    if len(lost) < len(missing):
        unread = next(t for t in missing if t not in lost)
        why = f"its tests did not run: the run shows no result for {unread}, nor with the fix"
        return RunVerdict(verdict=Verdict.NOT_RUN, reason=why)
    if not results and died_is_kill:
        # The fix's run reported these tests; the mutant's process ended before reporting any.
        return RunVerdict(verdict=Verdict.KILLED, killed_by=lost[0])
    broken = sorted({t.split("::", 1)[0] for t in lost} & set(results))
    if broken:
        why = f"its tests did not run: {broken[0]} did not load under the mutant"
    elif not results:
        why = UNBUILT
    else:
        why = f"its tests did not run: {lost[0]} is missing from its run's results"
    return RunVerdict(verdict=Verdict.NOT_RUN, reason=why)

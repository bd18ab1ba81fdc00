"""What judging the chosen mutants gives: each one's `MutantOutcome`, built once with all it
knows (a session's differential run, a confirmation alone), and the judged tests.

A verdict is a `Verdict`, never prose: `killed_by` holds the judged test that failed; a run the
budget or a timeout cut off, a test that did not run, or a session that crashed under a mutant
whose mutant could not be run again alone, leaves the mutant `not_run` with its reason.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from spice_engine.strength import sources
from spice_engine.strength.choose import Chosen
from spice_engine.strength.result import MutantOutcome, Verdict
from spice_engine.strength.runs import Observed

Ran = Literal["session", "process", "none"]
NO_DIFFERENCE = (
    "no difference observed: on its {calls} calls by the tests that run it and on inputs next "
    "to theirs, `{function}` returned or raised what the fix's did and left its arguments as "
    "the fix's did (not a proof: other inputs may differ)"
)
"""A survivor's differential run found nothing a test could check (on the tests' inputs)."""


class NoVerdicts(Exception):
    """No mutant could be judged: no run said which tests pass with the fix (`cut`: the fix's
    own run was stopped by the budget, which says nothing of the fix)."""

    def __init__(self, detail: str, log: str = "", cut: bool = False) -> None:
        super().__init__(detail)
        self.detail, self.log, self.cut = detail, log, cut


class Verdicts(BaseModel):
    """Every chosen mutant's outcome, and what the runs said about the tests judging them."""

    model_config = ConfigDict(frozen=True)

    judged: tuple[str, ...]
    """The listed tests that passed with the fix: the only ones a mutant is judged by."""
    done: dict[int, MutantOutcome]
    """Mutant key -> its outcome."""
    reached: dict[str, frozenset[int]] = {}
    """Judged test -> the switchable mutants its ordinary run executed (their guards)."""
    unstable: tuple[str, ...] = ()
    """Judged tests that failed their control rerun in the session: the session's survivors
    are judged again alone."""
    differential_s: float = 0.0
    """Seconds the sessions spent on differential runs."""
    log: str = ""
    """The first run's log."""
    imported: frozenset[str] | None = None
    """The tree's files the tests' session imported (None: no session said)."""


def differential_reason(seen: Observed | None) -> str:
    """A survivor's `reason`: what its differential run saw, or why it could not say."""
    if seen is None or seen.differs is None:
        return f"differential run: could not say ({seen.why})" if seen and seen.why else ""
    place = "the tests' own inputs" if seen.seen == "tests" else "inputs next to the tests'"
    return f"differential run: its function returns or leaves behind other values on {place}"


def outcome(
    c: Chosen,
    fixed: str,
    verdict: Verdict,
    run: Ran,
    reason: str = "",
    killed_by: str | None = None,
    seen: MutantOutcome | Observed | None = None,
) -> MutantOutcome:
    """A mutant's outcome; `seen`: where a differential run saw a survivor differ (its own
    session's, or the session outcome a confirmation alone keeps)."""
    difference = difference_in = None
    example = None
    if verdict == Verdict.SURVIVED and isinstance(seen, MutantOutcome):
        difference, difference_in = seen.difference, seen.difference_in
        reason, example = reason or seen.reason, seen.issue_example
    elif verdict == Verdict.SURVIVED and isinstance(seen, Observed):
        difference, difference_in = seen.seen, seen.where
    return MutantOutcome(
        path=c.path,
        line=c.site.line,
        function=c.site.function,
        operator=c.site.operator,
        change=c.site.change,
        diff=sources.diff(c.path, fixed, c.source),
        verdict=verdict,
        killed_by=killed_by if verdict == Verdict.KILLED else None,
        reason=reason,
        run=run,
        difference=difference,
        difference_in=difference_in,
        issue_example=example,
    )


def proven(c: Chosen, proof: str, fixed: str) -> MutantOutcome:
    """A mutant proven equivalent before any run."""
    return outcome(c, fixed, Verdict.EQUIVALENT, "none", proof)


def session_outcome(
    c: Chosen, fixed: str, killer: str | None, seen: Observed | None
) -> MutantOutcome:
    """A mutant's verdict in the shared session: killed by `killer`, or a survivor, or (its
    differential run saw nothing differ on the tests' inputs nor next to them) equivalent."""
    if killer is not None:
        return outcome(c, fixed, Verdict.KILLED, "session", killed_by=killer)
    if seen is not None and seen.differs is False:
        why = NO_DIFFERENCE.format(function=c.site.function, calls=seen.calls)
        return outcome(c, fixed, Verdict.EQUIVALENT, "session", why)
    return outcome(c, fixed, Verdict.SURVIVED, "session", differential_reason(seen), seen=seen)

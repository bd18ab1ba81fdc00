"""The comment's test-adequacy-by-execution lines: one line of fact and a survivor's diff."""

from __future__ import annotations

from app.github.untrusted_text import code_block, code_span
from spice_engine.strength.result import MutantOutcome, TestStrength


def _where(m: MutantOutcome) -> str:
    return code_span(f"{m.function}()") if m.function else f"{code_span(m.path)} line {m.line}"


REPORTED = " (as the PR's own tests report it: they run in the process that counts)"
"""The run's results come from a plugin in the same process as the PR's tests, which could
forge them (docs/security.md): the comment says so rather than presenting them as fact."""


def strength_line(s: TestStrength | None) -> str:
    """E.g. "The tests fail without the fix; 3 of 14 mutants of the fix survive — e.g.
    `< b → <= b` in `parse()` (as the PR's own tests report it: ...)." ("" when the PR's
    tests were not executed)."""
    if s is None or s.status not in ("measured", "no_mutants"):
        return ""
    parts = ["The tests fail without the fix"]
    survivors = s.survivors
    if survivors:
        first = survivors[0]
        change = code_span(first.change.replace("`", ""), 60)
        parts.append(
            f"{len(survivors)} of {s.mutants_tried} mutants of the fix survive — e.g. "
            f"{change} in {_where(first)}"
        )
    elif s.mutants_tried:
        parts.append(f"all {s.mutants_tried} mutants of the fix are caught")
    if s.untested:
        paths = ", ".join(dict.fromkeys(code_span(u.path) for u in s.untested))
        parts.append(f"{len(s.untested)} part(s) of the fix no failing test needs ({paths})")
    return "; ".join(parts) + REPORTED + "."


def survivor_block(s: TestStrength | None, secrets: tuple[str, ...]) -> str:
    """The first survivor as a diff against the fix ("" when none survived)."""
    if s is None or not s.survivors:
        return ""
    return code_block(s.survivors[0].diff, "diff", secrets=secrets)

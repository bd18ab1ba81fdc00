"""The comment's test-adequacy-by-execution lines: one line of fact, the most telling survivor's
diff, and a test that catches it (when one was written and proven both ways). What is shown is
`app.shown_survivors`' choice: survivors of a kind answered "not useful" are left out."""

from __future__ import annotations

from app.github.untrusted_text import code_block, code_span
from app.shown_survivors import ShownSurvivors, shown_survivors
from spice_engine.strength.result import MutantOutcome, TestStrength, Verdict, evidence


def _where(m: MutantOutcome) -> str:
    return code_span(f"{m.function}()") if m.function else f"{code_span(m.path)} line {m.line}"


REPORTED = " (as the PR's own tests report it: they run in the process that counts)"
"""The run's results come from a plugin in the same process as the PR's tests, which could
forge them (docs/security.md): the comment says so rather than presenting them as fact."""
REACHED = {
    "executed_unchecked": "a line the tests execute but do not check",
    "not_executed": "a line no test executes",
}


def _unshown(survivors: list[MutantOutcome]) -> list[str]:
    """Why no survivor is the example, by kind (e.g. "2 on lines no test executes")."""
    kinds = {
        "on lines no test executes": sum(m.untested_line for m in survivors),
        "only removing a line or returning None": sum(
            m.shown and evidence(m.operator) == 2 for m in survivors
        ),
        "renaming or reordering only what is stored": sum(
            m.shown and evidence(m.operator) < 2 for m in survivors
        ),
        "not confirmed either way (nothing a caller could see told it from the fix)": (
            sum(not m.shown and not m.untested_line for m in survivors)
        ),
    }
    return [f"{n} {kind}" for kind, n in kinds.items() if n]


def strength_line(s: TestStrength | None, shown: ShownSurvivors | None = None) -> str:
    """E.g. "The tests fail without the fix; 3 of 14 mutants of the fix survive — e.g.
    `< b → <= b` in `parse()`, a line the tests execute but do not check (as the PR's own
    tests report it: ...)." ("" when the PR's tests were not executed)."""
    if s is None or s.status not in ("measured", "no_mutants"):
        return ""
    parts = ["The tests fail without the fix"]
    shown = shown or shown_survivors(s)
    survivors, headline = s.survivors, shown.headline
    if headline is not None:
        top = headline.mutant
        change = code_span(top.change.replace("`", ""), 60)
        where = f", {REACHED[top.reached]}" if top.reached else ""
        if top.issue_example is not None:  # the issue's own input: said before the rest
            seen = top.issue_example
            said = f" {code_span(seen.statement, 60)}" if seen.statement else " example"
            if seen.near:  # not the issue's own command: one of its arguments left out
                said = f" command with an argument left out,{said},"
            where = (
                f", where the issue's{said} prints {code_span(seen.survivor or '(nothing)')}"
                f" instead of {code_span(seen.fix or '(nothing)')}{where}"
            )
        if top.module_state is not None:  # code run at import: what every importer gets
            held = top.module_state
            where = (
                f", where {code_span(held.module)} imported holds "
                f"{code_span(held.survivor)} instead of {code_span(held.fix)}{where}"
            )
        parts.append(
            f"{len(survivors)} of {s.mutants_tried} mutants of the fix survive — e.g. "
            f"{change} in {_where(top)}{where} (survivor {code_span(headline.id)})"
        )
        if untested := sum(m.untested_line for m in survivors):
            parts.append(f"{untested} on lines no test executes")
    elif survivors:
        parts.append(
            f"{len(survivors)} of {s.mutants_tried} mutants of the fix survive, none a "
            "telling example: " + ", ".join(_unshown(survivors))
        )
    elif s.mutants_tried:
        parts.append(f"all {s.mutants_tried} mutants of the fix are caught")
    if shown.suppressed:
        parts.append(f"{shown.suppressed} not shown: of kinds answered not useful here")
    equivalent = sum(m.verdict == Verdict.EQUIVALENT for m in s.mutants)
    if equivalent:
        parts.append(f"{equivalent} equivalent to the fix set aside")
    if s.untested:
        paths = ", ".join(dict.fromkeys(code_span(u.path) for u in s.untested))
        parts.append(f"{len(s.untested)} part(s) of the fix no failing test needs ({paths})")
    if s.needs_network:
        tests = "1 test needs" if s.needs_network == 1 else f"{s.needs_network} tests need"
        parts.append(f"{tests} the network, which the sandbox does not give (judged by neither)")
    if s.skipped:
        parts.append("not measured in full: " + "; ".join(s.skipped[:3]))
    return "; ".join(parts) + REPORTED + "."


Shown = ShownSurvivors | TestStrength | None
"""What reviewers are shown, or a measurement shown as it is (nothing suppressed)."""


def _headline(shown: Shown) -> MutantOutcome | None:
    chosen = shown if isinstance(shown, ShownSurvivors) else shown_survivors(shown)
    return chosen.headline.mutant if chosen.headline is not None else None


def survivor_block(shown: Shown, secrets: tuple[str, ...]) -> str:
    """The most telling survivor as a diff against the fix ("" when none is shown)."""
    top = _headline(shown)
    return "" if top is None else code_block(top.diff, "diff", secrets=secrets)


def catching_block(shown: Shown, secrets: tuple[str, ...]) -> str:
    """The test that passes on the fix and fails on the shown survivor ("" when none held)."""
    top = _headline(shown)
    if top is None or top.catching_test is None:
        return ""
    return code_block(top.catching_test.code, top.catching_test.fence, secrets=secrets)

"""The survivors of a measured test strength as evidence for the test-adequacy prompt."""

from __future__ import annotations

from spice_engine.strength.result import MutantOutcome, TestStrength

PROMPT_SURVIVORS = 3
READ = {
    "executed_unchecked": "the tests execute this line but do not check it",
    "not_executed": "no test executes this line",
}


def where(m: MutantOutcome) -> str:
    return f"`{m.function}()`" if m.function else f"`{m.path}` line {m.line}"


def survivors_text(s: TestStrength | None, limit: int = PROMPT_SURVIVORS) -> str:
    """The survivors as the prompt's evidence ("" when there are none)."""
    shown = [m for m in s.survivors if m.shown] if s is not None else []
    unrun = [m for m in s.survivors if m.untested_line] if s is not None else []
    if s is None or not (shown or unrun):
        return ""
    lines = [
        f"{len(s.survivors)} of {s.mutants_tried} small wrong variants of the gold patch pass "
        "every test this pull request touches (the most telling first)."
    ]
    if shown:
        lines.append("For example:")
    for m in shown[:limit]:
        seen = f"; {READ[m.reached]}" if m.reached else ""
        lines.append(f"- {m.change} in {where(m)} ({m.operator}{seen}):\n{m.diff.rstrip()}")
    if unrun:
        places = dict.fromkeys(f"{where(m)} (`{m.path}` line {m.line})" for m in unrun)
        lines.append("Changed lines no test executes: " + "; ".join(list(places)[:limit]))
    if s.untested:
        lines.append(
            "Parts of the gold patch the fail-to-pass tests pass without: "
            + "; ".join(u.header for u in s.untested[:5])
        )
    return "\n".join(lines)

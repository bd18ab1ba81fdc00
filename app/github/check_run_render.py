"""The test-strength check run's output: the result as its summary, a note at each shown
survivor's line (one per line, at most `MAX_NOTES`), and its conclusion per the operator."""

from __future__ import annotations

import hashlib

from app.github.check_runs import CheckAnnotation, CheckRunOutput, Conclusion
from app.github.strength_render import REACHED, strength_line
from app.github.untrusted_text import code_block, code_span, neutralise
from app.redaction import redact, redacted_excerpt
from app.shown_survivors import ShownSurvivors
from spice_engine.strength.result import TestStrength

CHECK_NAME = "SPICE test strength"
MAX_NOTES = 20
"""Notes at most (GitHub takes 50 a request): past a score of lines, the summary says the rest."""
MAX_DETAILS = 4_000


def _title(s: TestStrength, shown: ShownSurvivors) -> str:
    if s.status not in ("measured", "no_mutants"):
        return f"Not measured: {s.status}"
    if shown.shown:
        return f"{len(shown.shown)} wrong fix(es) the tests accept"
    if s.mutants_tried:
        return f"{s.mutants_killed} of {s.mutants_tried} mutants of the fix caught"
    return "No mutant of the fix to try"


def _plain(text: str, limit: int, secrets: tuple[str, ...]) -> str:
    return redacted_excerpt(text, head=limit, secrets=secrets)


def _notes(shown: ShownSurvivors, secrets: tuple[str, ...]) -> list[CheckAnnotation]:
    notes: dict[tuple[str, int], CheckAnnotation] = {}
    for one in shown.shown:
        m = one.mutant
        if (m.path, m.line) in notes or m.line < 1:
            continue  # the most telling of a line stands for it
        reached = f" ({REACHED[m.reached]})" if m.reached else ""
        # Notes are plain text on GitHub (no markdown, no mentions): redacted and cut only.
        caught = ""
        if m.catching_test is not None:
            caught = (
                f" A test written for it passes on the fix and fails on this change "
                f"({m.catching_test.failure}): the summary shows it."
            )
        if m.issue_example is not None:  # the issue's own input shows it
            seen = m.issue_example
            what = "command with an argument left out" if seen.near else "example"
            caught += (
                f" The issue's {what} then prints {seen.survivor!r} instead of {seen.fix!r}"
                f" ({seen.statement})."
            )
        if m.module_state is not None:  # code run at import
            held = m.module_state
            caught += (
                f" Imported with it, {held.module} holds {held.survivor!r} instead of {held.fix!r}."
            )
        message = (
            f"The pull request's tests pass with this line changed ({m.operator}){reached}."
            f"{caught} Survivor {one.id}: comment `/spice not-useful {one.id}` on the pull "
            "request if this kind of mutant is not useful here."
        )
        notes[(m.path, m.line)] = CheckAnnotation(
            path=m.path,
            start_line=m.line,
            end_line=m.line,
            title=_plain(f"A wrong fix the tests accept: {m.change}", 200, secrets),
            message=_plain(message, 1000, secrets),
            raw_details=_plain(m.diff, MAX_DETAILS, secrets),
        )
        if len(notes) == MAX_NOTES:
            break
    return list(notes.values())


def _summary(s: TestStrength, shown: ShownSurvivors, secrets: tuple[str, ...]) -> str:
    """The comment's line of fact, every shown survivor by id, and the example's diff."""
    line = strength_line(s, shown) or neutralise(f"{s.status}: {s.detail}", 1000, secrets)
    listed = []
    for one in shown.shown[:MAX_NOTES]:
        m = one.mutant
        place = code_span(f"{m.function}()") if m.function else f"line {m.line}"
        change = code_span(m.change.replace("`", ""), 80)
        listed.append(f"- {code_span(one.id)}: {change} in {code_span(m.path)} {place}")
    if len(shown.shown) > MAX_NOTES:
        listed.append(f"- and {len(shown.shown) - MAX_NOTES} more")
    blocks = [line, "\n".join(listed)]
    if shown.headline is not None:
        top = shown.headline.mutant
        blocks.append(code_block(top.diff, "diff", secrets=secrets))
        if top.catching_test is not None:
            where = code_span(top.catching_test.path)
            blocks.append(f"A test that passes on the fix and fails on this change ({where}):")
            blocks.append(
                code_block(top.catching_test.code, top.catching_test.fence, secrets=secrets)
            )
    return "\n\n".join(b for b in blocks if b)


def check_output(
    s: TestStrength, shown: ShownSurvivors, secrets: tuple[str, ...]
) -> CheckRunOutput:
    # The summary's code spans come from the pull request's code: redacted as a whole.
    return CheckRunOutput(
        title=_title(s, shown),
        summary=redact(_summary(s, shown, secrets), secrets)[:60_000],
        annotations=_notes(shown, secrets),
    )


def conclusion(shown: ShownSurvivors, mode: str) -> Conclusion:
    """`neutral`, unless the operator chose `failure_when_shown`."""
    if mode == "failure_when_shown":
        return "failure" if shown.shown else "success"
    return "neutral"


def output_key(output: CheckRunOutput, chosen: Conclusion) -> str:
    """What a check run showed, as its `external_id`: an unchanged result is not written twice."""
    text = output.model_dump_json() + chosen
    return hashlib.sha256(text.encode()).hexdigest()[:32]

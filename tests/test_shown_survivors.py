"""What reviewers are shown of a measurement: survivors by id, a kind (operator × place)
answered "not useful" left out wherever it recurs, and the check run's notes (one per line,
capped, within GitHub's limits) and conclusion."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.github.check_run_render import MAX_NOTES, check_output, conclusion, output_key
from app.github.check_runs import CheckRunOutput
from app.github.strength_render import strength_line
from app.shown_survivors import SURVIVOR_ID, key_of, shown_survivors, survivor_id
from spice_engine.strength.result import IssueExample, MutantOutcome, TestStrength, Verdict


def mutant(
    line: int, operator: str = "arithmetic", function: str | None = "add", **more: object
) -> MutantOutcome:
    values: dict[str, object] = {
        "path": "calc.py",
        "line": line,
        "function": function,
        "operator": operator,
        "change": f"`+` → `-` ({line})",
        "diff": f"--- a/calc.py\n+++ b/calc.py\n@@ -{line} +{line} @@\n-    a + b\n+    a - b\n",
        "verdict": Verdict.SURVIVED,
        "reached": "executed_unchecked",
        "rank": line,
    }
    return MutantOutcome.model_validate(values | more)


def measured(*mutants: MutantOutcome) -> TestStrength:
    s = TestStrength(status="measured", mutants=list(mutants))
    s.tally()
    return s


def test_ids_are_short_stable_and_differ_per_mutant() -> None:
    a, b = mutant(2), mutant(3)
    assert SURVIVOR_ID.match(survivor_id(a)) and survivor_id(a) == survivor_id(mutant(2))
    assert survivor_id(a) != survivor_id(b)
    assert key_of(a) == key_of(b)  # same operator, same function: one kind
    assert key_of(mutant(9, function=None)).place == "line 9"


def test_a_kind_answered_not_useful_is_left_out_wherever_it_recurs() -> None:
    s = measured(mutant(2), mutant(3), mutant(4, operator="comparison"))
    everything = shown_survivors(s)
    assert [x.mutant.line for x in everything.shown] == [2, 3, 4]
    assert everything.headline is not None and everything.headline.mutant.line == 2
    quieter = shown_survivors(s, frozenset({key_of(mutant(2))}))
    assert [x.mutant.line for x in quieter.shown] == [4] and quieter.suppressed == 2
    assert quieter.headline is not None and quieter.headline.mutant.operator == "comparison"
    line = strength_line(s, quieter)
    assert "3 of 3 mutants of the fix survive" in line  # the measurement is unchanged
    assert f"(survivor `{quieter.headline.id}`)" in line
    assert "2 not shown: of kinds answered not useful here" in line


def test_killed_unshown_and_untested_survivors_are_never_noted() -> None:
    s = measured(
        mutant(2, verdict=Verdict.KILLED, killed_by="tests/test_calc.py::test_add"),
        mutant(3, reached="not_executed"),
        mutant(4, unconfirmed="no differential run"),
    )
    assert shown_survivors(s).shown == []
    output = check_output(s, shown_survivors(s), ())
    assert output.annotations == [] and output.title == "1 of 3 mutants of the fix caught"
    assert conclusion(shown_survivors(s), "failure_when_shown") == "success"


def test_notes_one_per_line_capped_and_redacted() -> None:
    secret = "sk-live-abcdefghijklmnop"
    many = [mutant(n) for n in range(1, MAX_NOTES + 6)]
    twin = mutant(1, operator="comparison", change=f"`<` → `<=` {secret}", rank=0)
    s = measured(*many, twin)
    shown = shown_survivors(s)
    output = check_output(s, shown, (secret,))
    assert len(output.annotations) == MAX_NOTES  # line 1 once, though two survivors sit there
    assert len({(a.path, a.start_line) for a in output.annotations}) == MAX_NOTES
    assert secret not in output.model_dump_json()
    alone = measured(mutant(1, change=f"`<` → `{secret}`", diff=f"+    key = '{secret}'\n"))
    said = check_output(alone, shown_survivors(alone), (secret,))
    assert said.annotations and secret not in said.model_dump_json()
    assert "- and 6 more" in output.summary
    assert conclusion(shown, "neutral") == "neutral"
    assert conclusion(shown, "failure_when_shown") == "failure"
    assert output_key(output, "neutral") != output_key(output, "failure")


def test_github_limits_hold_in_the_request_model() -> None:
    with pytest.raises(ValidationError, match="at most 50 items"):
        CheckRunOutput(
            title="t",
            summary="s",
            annotations=[
                {"path": "a.py", "start_line": 1, "end_line": 1, "message": "m"}  # type: ignore[list-item]
            ]
            * 51,
        )


def test_a_measurement_that_did_not_run_says_why() -> None:
    s = TestStrength(status="error", detail="no environment: pip failed")
    output = check_output(s, shown_survivors(s), ())
    assert output.title == "Not measured: error"
    assert "no environment: pip failed" in output.summary


def test_tests_needing_the_network_are_counted_where_the_reviewer_looks() -> None:
    s = measured(mutant(2))
    assert "the network" not in strength_line(s)
    s.needs_network = 37
    line = strength_line(s)
    assert "37 tests need the network, which the sandbox does not give" in line
    assert "37 tests need the network" in check_output(s, shown_survivors(s), ()).summary


def test_a_survivor_the_issues_example_tells_apart_is_noted_with_what_it_printed() -> None:
    """Shown on a line no judged test executes, because the issue's own example differs; the
    comment and the note both say what it printed (the example's output is the sandbox's:
    redacted and cut like any note)."""
    secret = "sk-live-abcdefghijklmnop"
    seen = IssueExample(statement="half(9)", fix="4", survivor=f"None {secret}")
    told = mutant(3, reached="not_executed", difference="issue", issue_example=seen)
    s = measured(told)
    shown = shown_survivors(s)
    assert [one.mutant for one in shown.shown] == [told] and not told.untested_line
    note = check_output(s, shown, (secret,)).annotations[0]
    assert "The issue's example then prints" in note.message and "(half(9))" in note.message
    assert secret not in note.message
    assert "where the issue's `half(9)` prints `None" in strength_line(s)

"""Mutants of a fix's changed lines: the operators, the lines they keep to, and a schema that
behaves, mutant by mutant, exactly as each plain mutant does (no execution of a repository)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from app.github.strength_render import strength_line, survivor_block
from spice_engine.runs.session import Status
from spice_engine.strength import mutants, sources
from spice_engine.strength.choose import choose
from spice_engine.strength.parts import changed_lines, parts
from spice_engine.strength.rank import rank, unconfirmed
from spice_engine.strength.result import CatchingTest, MutantOutcome, TestStrength, Verdict
from spice_engine.strength.summary import survivors_text

SOURCE = '''"""A module."""
from __future__ import annotations

LIMIT = 3


def clamp(a, b=1):
    if a < b and not a:
        return max(a, b) + 1
    total = add(a, b)
    return total > LIMIT


def add(x, y):
    return x + y
'''


def _function(source: str, name: str) -> Callable[..., Any]:
    space: dict[str, Any] = {}
    exec(compile(source, "<mutant>", "exec"), space)
    return space[name]  # type: ignore[no-any-return]


def test_only_changed_lines_are_mutated_with_each_operator() -> None:
    sites = mutants.find_sites(SOURCE, {8, 9, 10})
    assert {s.line for s in sites} == {8, 9, 10}
    assert {s.operator for s in sites} >= {
        "comparison",
        "boolean operator",
        "negated condition",
        "constant",
        "arithmetic",
        "arguments swapped",
        "return replaced",
        "statement removed",
    }
    assert all(s.function == "clamp" and s.switchable for s in sites)
    # A default argument runs at import: not switchable inside a session.
    defaults = mutants.find_sites(SOURCE, {7})
    assert [(s.change, s.switchable) for s in defaults] == [
        ("`1` → `2`", False),
        ("`1` → `0`", False),
    ]


def test_an_argument_the_fix_adds_to_an_older_call_can_be_removed() -> None:
    source = "def f(x):\n    return g(\n        x,\n        strict=True,\n    )\n"
    sites = mutants.find_sites(source, {4})
    removed = [s for s in sites if s.operator == "argument removed"]
    assert [s.change for s in removed] == ["`strict=True` removed from `g()`"]
    assert "strict" not in mutants.plain(source, {4}, removed[0].id)


def test_strings_that_are_parts_of_a_concatenation_or_docstrings_are_left_alone() -> None:
    source = 'def f(x):\n    """Doc."""\n    return x + ("a" "b")\n'
    sites = mutants.find_sites(source, {2, 3})
    assert [s.operator for s in sites] == ["arithmetic", "return replaced"]
    compile(sources.schema(source, {2, 3}, {s.id for s in sites}), "<schema>", "exec")


def test_the_schema_behaves_as_each_plain_mutant() -> None:
    lines = {8, 9, 10, 11, 15}
    sites = [s for s in mutants.find_sites(SOURCE, lines) if s.switchable]
    schema = sources.schema(SOURCE, lines, {s.id for s in sites}, offset=500)
    compile(schema, "<schema>", "exec")
    inputs = [(0, 1), (0, 0), (2, 5), (7, 1), (-1, 2)]
    differs = 0
    for site in sites:
        os.environ["SPICE_MUTANT"] = str(500 + site.id)
        try:
            switched = _function(schema, "clamp")
            plain = _function(mutants.plain(SOURCE, lines, site.id), "clamp")
            for args in inputs:
                assert _outcome(switched, args) == _outcome(plain, args), (site, args)
            differs += any(
                _outcome(plain, a) != _outcome(_function(SOURCE, "clamp"), a) for a in inputs
            )
        finally:
            del os.environ["SPICE_MUTANT"]
    assert differs >= len(sites) // 2  # most mutants change what clamp returns
    unswitched = _function(schema, "clamp")
    assert [_outcome(unswitched, a) for a in inputs] == [
        _outcome(_function(SOURCE, "clamp"), a) for a in inputs
    ]


def _outcome(fn: Callable[..., Any], args: tuple[int, int]) -> object:
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001 - raising is the outcome (a removed assignment raises
        return "raised"  # NameError plainly, UnboundLocalError in the schema: both fail a test)


def test_choice_is_bounded_and_skips_mutants_that_change_nothing() -> None:
    source = "def f(x):\n    return x * 1 if x else -0\n"
    got = choose({"m.py": source}, {"m.py": {2}}, limit=100)
    assert all(not sources.same_program(source, c.source) for c in got.chosen)
    assert len({c.source for c in got.chosen}) == len(got.chosen)
    assert len(choose({"m.py": SOURCE}, {"m.py": {8, 9, 10}}, limit=4).chosen) == 4


FIX = """diff --git a/a.py b/a.py
--- a/a.py
+++ b/a.py
@@ -1,3 +1,3 @@
 def f():
-    return 1
+    return 2
 x = 0
@@ -10,3 +10,4 @@ def g():
 def h():
     x = 1
+    x += 1
     return x
diff --git a/b.py b/b.py
--- a/b.py
+++ b/b.py
@@ -1,2 +1,2 @@
-A = 1
+A = 2
 B = 2
"""


def test_parts_of_a_fix() -> None:
    found = parts(FIX)
    assert [(p.path, p.hunk) for p in found] == [
        ("a.py", None),
        ("b.py", None),
        ("a.py", 1),
        ("a.py", 2),
    ]
    assert "+    x += 1" in found[2].without and "+    return 2" not in found[2].without
    assert "b.py" in found[2].without and "a.py" not in found[0].without
    assert changed_lines(FIX) == {"a.py": {2, 12}, "b.py": {1}}


GUARDED = """def load(app, node):
    if app.mode != "description":
        return
    node.append(app.mode)
    for item in app.items:
        if not item:
            continue
        node.append(item)
"""


def test_removing_an_early_leaving_guard_is_its_own_operator() -> None:
    """A guard's removal runs what it kept out: a change of behaviour, ranked as one; other
    removed statements (an assignment, a call) mostly crash."""
    removed = {
        s.line: s.operator
        for s in mutants.find_sites(GUARDED, set(range(1, 9)))
        if s.operator.endswith("removed")
    }
    assert removed[2] == removed[6] == "guard removed"
    assert removed[4] == removed[8] == "statement removed"


def test_the_telling_survivor_changes_a_value_before_a_name_before_a_crash() -> None:
    def survivor(operator: str, line: int) -> MutantOutcome:
        return MutantOutcome(
            path="m.py",
            line=line,
            function="load",
            operator=operator,
            change="",
            diff="",
            reached="executed_unchecked",
            by_fail_to_pass=True,
        )

    got = [
        survivor("statement removed", 1),
        survivor("string", 2),
        survivor("guard removed", 3),
        survivor("arguments swapped", 4),
        survivor("comparison", 5),
    ]
    rank(got, "load() ignores the mode")
    assert [m.operator for m in sorted(got, key=lambda m: m.rank)] == [
        "guard removed",
        "comparison",
        "string",
        "arguments swapped",
        "statement removed",
    ]


def _c_mutant(line: int, verdict: Verdict, change: str) -> MutantOutcome:
    """A constant mutant of jq's builtin.c, its line run by a FAIL_TO_PASS test."""
    return MutantOutcome(
        path="builtin.c",
        line=line,
        operator="constant",
        change=change,
        diff="",
        verdict=verdict,
        reached="executed_unchecked",
        by_fail_to_pass=True,
    )


def test_a_line_nothing_checks_comes_before_a_lone_slip_past_killed_siblings() -> None:
    mutant = _c_mutant
    slip = mutant(675, Verdict.SURVIVED, "`4` → `5`")
    unchecked = mutant(684, Verdict.SURVIVED, "`10` → `11`")
    got = [slip, unchecked, mutant(684, Verdict.SURVIVED, "`+` → `-`")]
    got += [mutant(675, Verdict.KILLED, f"`4` → `{n}`") for n in (3, 0)]
    got.append(mutant(684, Verdict.KILLED, "`<=` → `<`"))
    rank(got, "uri decode function")
    assert unchecked.rank < slip.rank  # two of three survive on 684, one of three on 675
    # Where the lines are alike, place decides, as before: the earlier line first.
    got.append(mutant(684, Verdict.KILLED, "`>=` → `>`"))
    got.append(mutant(675, Verdict.SURVIVED, "`0x0f` → `0x10`"))
    rank(got, "uri decode function")
    assert slip.rank < unchecked.rank


def test_a_lone_survivor_on_its_line_ranks_between_checked_and_unchecked_lines() -> None:
    """jq-3161's `0` → `1` in a first octet's initial value, the only mutant of its line, came
    first, as if its siblings had all survived; nothing beside it says either way."""
    mutant = _c_mutant
    lone = mutant(671, Verdict.SURVIVED, "`0` → `1`")
    unchecked = mutant(684, Verdict.SURVIVED, "`<= 'f'` → `< 'f'`")
    slip = mutant(685, Verdict.SURVIVED, "`<= c` → `< c`")
    got = [lone, unchecked, slip, mutant(684, Verdict.SURVIVED, "`10` → `11`")]
    got += [mutant(684, Verdict.SURVIVED, "`- 'a'` → `+ 'a'`")]
    got += [mutant(684, Verdict.KILLED, "`&&` → `||`")]
    got += [mutant(685, Verdict.KILLED, change) for change in ("`+ 10`", "`- 'A'`")]
    rank(got, "uri decode function")
    assert unchecked.rank < lone.rank < slip.rank


def test_a_survivor_is_shown_as_a_wrong_fix_only_with_evidence() -> None:
    def survivor(**seen: object) -> MutantOutcome:
        m = MutantOutcome(path="m.py", line=1, operator="string", change="", diff="", **seen)
        m.unconfirmed = unconfirmed(m)
        return m

    differs = survivor(reached="executed_unchecked", difference="nearby")
    unrun = survivor(reached="not_executed")
    said = "differential run: could not say (two runs of the fix made 2 and 3 calls)"
    unsure = survivor(reached="executed_unchecked", reason=said)
    at_import = survivor(reached=None)
    assert differs.shown and not differs.untested_line
    # A line no test executes is said as such, not claimed as a wrong fix.
    assert not unrun.shown and unrun.untested_line
    assert not unsure.shown and unsure.unconfirmed == said
    assert not at_import.shown and "import" in at_import.unconfirmed
    caught = CatchingTest(path="tests/test_x.py", code="def test_x(): ...", failure="assert")
    assert survivor(reached=None, catching_test=caught).shown  # a written test is evidence
    assert survivor(reached="not_executed", catching_test=caught).shown


def _ranked(*survivors: MutantOutcome) -> TestStrength:
    for n, m in enumerate(survivors, 1):
        m.rank, m.unconfirmed = n, unconfirmed(m)
    got = TestStrength(status=Status.MEASURED, mutants=list(survivors))
    got.tally()
    return got


def _survivor(operator: str, line: int, **seen: Any) -> MutantOutcome:
    return MutantOutcome(
        path="m.py",
        line=line,
        function="load",
        operator=operator,
        change=f"change {line}",
        diff=f"-old {line}\n+new {line}\n",
        **seen,
    )


def test_the_example_is_a_changed_value_seen_to_differ_not_a_removed_line_or_an_unrun_one() -> None:
    seen = {"reached": "executed_unchecked", "difference": "tests", "by_fail_to_pass": True}
    nearby = seen | {"difference": "nearby"}
    removed = _survivor("statement removed", 1, **nearby)  # seen only on other inputs
    unrun = _survivor("constant", 2, reached="not_executed")
    changed = _survivor("comparison", 3, **seen)
    got = _ranked(removed, unrun, changed)
    assert got.headline is changed  # ranked third, the first fit to be the example
    line = strength_line(got)
    assert "3 of 3 mutants of the fix survive — e.g. `change 3` in `load()`" in line
    assert "1 on lines no test executes" in line
    evidence = survivors_text(got)
    assert "change 1 in `load()`" in evidence and "change 3 in `load()`" in evidence
    assert "change 2" not in evidence and "no test executes: `load()` (`m.py` line 2)" in evidence
    # A removed line whose function answered the tests' own calls otherwise broke what a
    # caller gets (go-zero-2283's CORS router never installed): the example, as a value is.
    for where in ("returned", "stored"):
        broke = _survivor("statement removed", 1, difference_in=where, **seen)
        assert _ranked(broke, _survivor("constant", 2, reached="not_executed")).headline is broke


def test_a_renamed_string_seen_only_in_what_was_stored_is_not_the_example() -> None:
    seen = {"reached": "executed_unchecked", "difference": "tests", "by_fail_to_pass": True}
    stored = _survivor("string", 1, difference_in="stored", **seen)  # a candidate kept
    compared = _survivor("string", 2, difference_in="returned", **seen)  # a key looked up
    got = _ranked(stored, compared)
    assert stored.shown and not stored.telling and got.headline is compared
    condition = _survivor("comparison", 3, difference_in="stored", **seen)
    assert condition.telling  # a changed condition needs no more
    # With no telling one, the comment says what the shown ones do.
    alone = _ranked(_survivor("string", 1, difference_in="stored", **seen))
    assert "1 renaming or reordering only what is stored" in strength_line(alone)


def test_with_no_telling_survivor_the_comment_shows_none_and_says_why() -> None:
    seen = {"reached": "executed_unchecked", "difference": "tests", "by_fail_to_pass": True}
    got = _ranked(
        _survivor("return replaced", 1, **(seen | {"difference": "nearby"})),
        _survivor("constant", 2, reached="not_executed"),
        _survivor("constant", 3, reached="executed_unchecked", reason="could not say"),
    )
    assert got.headline is None and survivor_block(got, ()) == ""
    assert (
        "3 of 3 mutants of the fix survive, none a telling example: 1 on lines no test "
        "executes, 1 only removing a line or returning None, 1 not confirmed either way"
    ) in strength_line(got)
    # A written test that catches a removed line makes it the example.
    caught = CatchingTest(path="tests/test_x.py", code="def test_x(): ...", failure="assert")
    got.mutants[0].catching_test = caught
    assert got.headline is got.mutants[0]

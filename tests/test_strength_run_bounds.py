"""How long a mutant's whole run may take: the fix's first run builds the tree cold, so once a
mutant of a file has run to its end, a later one of the same file is held to that run (jq's
mutant runs took 5 s after a 45 s first build; a hanging one waited 150–180 s before)."""

from __future__ import annotations

from spice_engine.strength.runs import RUN_FACTOR, SLACK_FLOOR_S, FileRuns


def test_a_file_without_a_finished_mutant_run_keeps_the_fix_s_bound() -> None:
    runs = FileRuns(slack_s=30.0)
    assert runs.cap("src/jv.c", 165.0) == 165.0
    assert runs.cap("src/jv.c", None) is None  # no bound yet: none is made up


def test_a_finished_run_holds_later_mutants_of_its_file_only() -> None:
    runs = FileRuns(slack_s=30.0)
    runs.note("src/jv.c", 5.0, complete=True)
    assert runs.cap("src/jv.c", 165.0) == RUN_FACTOR * 5.0 + SLACK_FLOOR_S
    assert runs.cap("src/builtin.c", 165.0) == 165.0  # another file rebuilds other units
    runs.note("src/jv.c", 9.0, complete=True)
    runs.note("src/jv.c", 6.0, complete=True)
    assert runs.cap("src/jv.c", 165.0) == RUN_FACTOR * 9.0 + SLACK_FLOOR_S  # the longest sets it


def test_a_build_that_failed_or_a_cut_run_says_nothing_of_what_a_run_costs() -> None:
    runs = FileRuns(slack_s=30.0)
    runs.note("include/fmt/format.h", 1.0, complete=False)  # did not compile: 1 s
    assert runs.cap("include/fmt/format.h", 200.0) == 200.0
    runs.note("include/fmt/format.h", 60.0, complete=True)  # a header rebuilds much
    assert runs.cap("include/fmt/format.h", 200.0) == 200.0  # never above the fix's bound
    assert runs.cap("include/fmt/format.h", 300.0) == RUN_FACTOR * 60.0 + 30.0


def test_the_slack_is_no_more_than_the_finished_run_itself() -> None:
    """The mutant's build is in its file's finished run already: a 2.5 s run (ripgrep's) leaves
    a later mutant the floor's slack, not 30 s; a 20 s one its own 20 s; a long one the whole."""
    runs = FileRuns(slack_s=30.0)
    runs.note("crates/printer/src/util.rs", 2.5, complete=True)
    assert runs.cap("crates/printer/src/util.rs", 80.0) == RUN_FACTOR * 2.5 + SLACK_FLOOR_S
    runs.note("src/a.rs", 20.0, complete=True)
    assert runs.cap("src/a.rs", 200.0) == RUN_FACTOR * 20.0 + 20.0
    runs.note("src/b.rs", 45.0, complete=True)
    assert runs.cap("src/b.rs", 500.0) == RUN_FACTOR * 45.0 + 30.0


def test_the_watched_run_takes_what_is_left_when_half_would_be_too_little() -> None:
    """The differential run of a runner of the repository's own (sympy's) is what shows or holds
    a survivor: with 16 s left (sympy-20154 at 3×) it takes 15 s, not half (8 s: skipped, the
    rest unused); with much left, half (the hunk check after it); never the last second."""
    from spice_engine.strength.watched import MIN_S, watch_budget

    assert MIN_S <= watch_budget(16.4) == 15.0
    assert watch_budget(101.0) == 50.0
    assert watch_budget(9.0) < MIN_S  # too little for a run: skipped, said so
    assert all(watch_budget(s) <= s - 1.0 for s in (2.0, 12.0, 30.0, 400.0))

"""Test strength in a language without our plugins (Go, in the sandbox): each survivor's line
probed for the tests that run it, so a wrong fix on a line no test runs is said as such, not
shown as one the tests accept (spice_engine.strength.line_probe)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spice_engine.runs.session import Status
from spice_engine.strength.config import StrengthConfig
from tests.lang_projects import go_sandbox, lang_job, project_instance

BASE = "package mathx\n\nfunc Clamp(x, lo, hi int) int {\n\treturn x\n}\n"
# Only the low end is tested: `x > hi`'s line runs in no test (the low case returns first).
FIX = (
    "package mathx\n\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n"
    "\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}\n"
    # Its one mutant (the call removed) does not build: no wrong fix, not judged.
    '\ntype level int\n\nfunc (l level) Name() string {\n\treturn "L"\n}\n\n'
    "func Label(x int) string {\n\treturn level(x).Name()\n}\n"
    # One line, two places: the condition runs (its mutant is killed), the return never does.
    "\nfunc Sign(x int) int {\n\tif x == 0 { return 7 }\n\treturn 1\n}\n"
    # At 0, `x < 0` → `x <= 0` decides otherwise and returns -0: the test tries it, masked.
    "\nfunc Abs(x int) int {\n\tif x < 0 {\n\t\treturn -x\n\t}\n\treturn x\n}\n"
)
TEST = (
    'package mathx\n\nimport "testing"\n\nfunc TestClampLow(t *testing.T) {\n'
    '\tif Clamp(-5, 0, 10) != 0 || Sign(5) != 1 || Abs(0) != 0 {\n\t\tt.Fatal("not clamped")\n'
    "\t}\n}\n"
)


def _project(
    data: Path, name: str, fix: str, test: str, base: str = BASE, more: dict[str, str] | None = None
) -> None:
    """A Go module's base, test patch and fix as `project_instance` reads them: `mathx/`'s
    `name.go` (BASE, then `fix`) and `name_test.go`; `more` files in the base beside them."""
    for part, files in {
        "base": {"go.mod": "module example.com/c\n\ngo 1.21\n", f"mathx/{name}.go": base}
        | (more or {}),
        "test": {f"mathx/{name}_test.go": test},
        "fix": {f"mathx/{name}.go": fix},
    }.items():
        for path, text in files.items():
            (data / part / path).parent.mkdir(parents=True, exist_ok=True)
            (data / part / path).write_text(text)


def _measured(
    tmp_path: Path,
    name: str,
    fix_test: tuple[str, str],
    f2p: str,
    config: Any,
    base: str = BASE,
    more: dict[str, str] | None = None,
) -> Any:
    """The strength of the Go fix `fix_test` of `mathx/name.go`, judged by `f2p`, in the
    sandbox (skipped, with the reason, where Go or bubblewrap is not there)."""
    box = go_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor
    from spice_engine.strength.measure import measure

    _project(tmp_path / "data", name, *fix_test, base=base, more=more)
    row = project_instance(tmp_path / "data", tmp_path / "repo")
    row["FAIL_TO_PASS"], row["PASS_TO_PASS"] = json.dumps([f2p]), "[]"
    job = lang_job(row, tmp_path / "repo", "go")
    got = measure(job, Executor(tmp_path / "envs", box), tmp_path / "scratch", config)
    assert got.status == Status.MEASURED, got.detail
    return got


def test_a_survivor_no_test_runs_is_an_untested_line_and_one_run_is_shown(tmp_path: Path) -> None:
    low = "example.com/c/mathx::TestClampLow"
    got = _measured(tmp_path, "clamp", (FIX, TEST), low, StrengthConfig(max_mutants=20))
    by_line: dict[int, list[Any]] = {}
    for m in got.survivors:
        by_line.setdefault(m.line, []).append(m)
    assert 7 in by_line and 4 in by_line, [(m.line, m.change) for m in got.survivors]
    # `x > hi` → `x >= hi` and the like: no test runs line 7.
    assert all(m.reached == "not_executed" and m.untested_line for m in by_line[7])
    assert not any(m.shown for m in by_line[7])
    # `x < lo` → `x <= lo`: the failing-before test runs it and cannot tell. Its traced calls
    # answer alike; its decision probe finds no test deciding otherwise there (none gives
    # x = lo): shown as executed and unchecked, saying so.
    low_end = by_line[4]
    assert all(m.reached == "executed_unchecked" and m.by_fail_to_pass for m in low_end)
    assert all(m.shown for m in low_end)
    assert all(
        m.reason.startswith("decision probe: no judged test makes `x < lo` decide otherwise")
        for m in low_end
    ), [m.reason for m in low_end]
    # `x < 0` → `x <= 0` in Abs: `Abs(0)` decides otherwise and returns -0, the same 0: tried
    # by the test and masked, held (not confirmed either way), not shown.
    masked = [m for m in got.survivors if m.function == "Abs" and m.change == "`< 0` → `<= 0`"]
    assert masked and not masked[0].shown, [(m.change, m.verdict) for m in got.mutants]
    assert masked[0].unconfirmed.startswith(f"decision probe: `{low}` made `x < 0` decide")
    assert any("survivor(s) the tests tried" in s for s in got.skipped), got.skipped
    assert got.headline is not None and got.headline.line == 4
    sign = {m.change: m for m in got.mutants if m.function == "Sign"}
    assert sign["`== 0` → `!= 0`"].killed_by == low
    seven = sign["`7` → `8`"]
    assert seven.verdict == "survived" and seven.reached == "not_executed", seven
    unbuilt = [m for m in got.mutants if m.function == "Label"]
    assert [m.verdict for m in unbuilt] == ["not_run"]
    assert "1 mutant(s) do not build: not wrong fixes, not judged" in got.skipped
    assert "line_probes" in got.durations and not any("not probed" in s for s in got.skipped)


def test_a_survivor_whose_decision_probe_does_not_answer_is_not_confirmed(tmp_path: Path) -> None:
    """The tree already has the probe's helper (as a hostile one could): no probe builds, so
    the bound the tests never try is held, said as unanswered, not shown on its line's run
    alone (what survivors shown so were, genuine about half the time)."""
    from spice_engine.strength.decision_probe import UNANSWERED

    low = "example.com/c/mathx::TestClampLow"
    taken = {"mathx/taken.go": "package mathx\n\nfunc spiceProbeSame() {}\n"}
    got = _measured(tmp_path, "clamp", (FIX, TEST), low, StrengthConfig(max_mutants=20), more=taken)
    low_end = [m for m in got.survivors if m.line == 4]
    assert low_end and all(m.reached == "executed_unchecked" for m in low_end), got.mutants
    assert all(m.unconfirmed == UNANSWERED and not m.shown for m in low_end), [
        (m.change, m.reason, m.unconfirmed) for m in low_end
    ]
    assert any("not decision-probed" in s for s in got.skipped), got.skipped


CMP_BASE = "package mathx\n\nfunc Cmp(a, b int) int {\n\treturn a - b\n}\n"
CMP = (
    "package mathx\n\nfunc Cmp(a, b int) int {\n\td := a - b\n\tif d == 0 {\n"
    "\t\tif a > 100 {\n\t\t\td = 1\n\t\t} else {\n\t\t\td = 0\n\t\t}\n\t}\n\treturn d\n}\n"
)
CMP_TEST = (
    'package mathx\n\nimport "testing"\n\nfunc TestCmp(t *testing.T) {\n'
    '\tif Cmp(3, 3) != 0 || Cmp(5, 3) != 2 {\n\t\tt.Fatal("no")\n\t}\n}\n'
)


def test_an_assignment_left_out_that_never_changed_its_target_is_held(tmp_path: Path) -> None:
    """`d = 0` under `if d == 0` writes what is there each time the tests run it: left out,
    nothing differs, as with an assignment made to change nothing; held, not shown."""
    from spice_engine.strength.decision_probe import NEVER_CHANGED

    config = StrengthConfig(max_mutants=20)
    got = _measured(
        tmp_path, "cmp", (CMP, CMP_TEST), "example.com/c/mathx::TestCmp", config, CMP_BASE
    )
    kept = [m for m in got.survivors if m.change == "`d = 0` removed"]
    assert kept and kept[0].reached == "executed_unchecked", [
        (m.change, m.verdict) for m in got.mutants
    ]
    said = NEVER_CHANGED.format(expression="d = 0", differ="change what `d` holds")
    assert kept[0].unconfirmed == said and not kept[0].shown, kept[0]
    # `d = 1` never runs (no test compares two equal numbers over 100): said so, not shown.
    assert all(m.untested_line for m in got.survivors if m.line == 7)


COUNT = (
    "package mathx\n\nfunc Count(n int) int {\n\tsteps := 0\n\tfor n > 0 {\n\t\tn = n - 1\n"
    "\t\tsteps++\n\t}\n\treturn steps\n}\n"
)
COUNT_TEST = (
    'package mathx\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n'
    '\tif Count(3) != 3 {\n\t\tt.Fatal("miscounted")\n\t}\n}\n'
)


@pytest.mark.heavy  # waits out a hanging run's bound, twice over
def test_a_mutant_that_hangs_is_stopped_at_a_multiple_of_the_fixs_run(tmp_path: Path) -> None:
    """`n - 1` → `n + 1` never ends: its run is stopped after 3× the fix's own and the slack,
    `not_run` (no kill: nothing failed), long before the budget, which the others then get."""
    config = StrengthConfig(max_mutants=8, run_slack_s=3.0, budget_s=900.0)
    got = _measured(
        tmp_path, "count", (COUNT, COUNT_TEST), "example.com/c/mathx::TestCount", config
    )
    stopped = [m for m in got.mutants if m.reason == "cut off: its run was stopped (timeout)"]
    assert stopped and all(m.verdict == "not_run" and m.killed_by is None for m in stopped)
    assert not any("budget" in m.reason for m in got.mutants)
    assert got.mutants_killed >= 1  # the others were judged


WORK = (
    "package mathx\n\nfunc Work(done chan<- int, x int) {\n\tdefer func() { recover() }()\n"
    "\tif x > 100 {\n\t\tx = 100\n\t}\n\tdone <- x\n}\n"
)
WORK_TEST = (
    'package mathx\n\nimport "testing"\n\nfunc TestWork(t *testing.T) {\n'
    "\tdone := make(chan int)\n\tgo Work(done, 5)\n"
    '\tif <-done != 5 {\n\t\tt.Fatal("changed")\n\t}\n}\n'
)


@pytest.mark.heavy  # waits out a hanging run's bound
def test_a_probe_that_makes_the_tests_hang_was_reached(tmp_path: Path) -> None:
    """The probe's panic is recovered in the goroutine, which then never answers: the run hangs
    until its bound. Only a reached probe changes what runs, so the survivors there are
    executed (by no test known by name), not unknown."""
    config = StrengthConfig(max_mutants=8, run_slack_s=3.0, budget_s=900.0)
    got = _measured(tmp_path, "work", (WORK, WORK_TEST), "example.com/c/mathx::TestWork", config)
    bound = [m for m in got.survivors if m.line == 5]  # `if x > 100 {`
    assert bound, [(m.change, m.verdict) for m in got.mutants]
    assert all(m.reached == "executed_unchecked" and not m.by_fail_to_pass for m in bound), [
        (m.line, m.change, m.reached) for m in got.mutants
    ]
    assert all(m.shown for m in bound)  # a bound moved: `Work(done, 5)` never tries it
    inside = [m for m in got.survivors if m.line == 6]  # `x = 100`: 5 never gets there
    assert inside and all(m.reached == "not_executed" for m in inside)


def test_a_survivor_nothing_classed_is_not_confirmed_either_way() -> None:
    """No probe ran for its line (the budget) and no trace saw its function: shown, it was a
    claim with no evidence (go-zero-2463's three wrappers, go-zero-990's unresolved `Dir`).
    What a probe, a trace, the issue's example or a written test said stays as it was."""
    from spice_engine.strength.line_probe import UNKNOWN_LINE, hold_unknown
    from spice_engine.strength.result import CatchingTest, MutantOutcome, Verdict

    def survivor(line: int, **seen: Any) -> MutantOutcome:
        return MutantOutcome(
            path="logs.go",
            line=line,
            operator="statement removed",
            change=f"`call{line}()` removed",
            diff="",
            **({"verdict": Verdict.SURVIVED} | seen),
        )

    caught = CatchingTest(path="logs_test.go", code="func TestX(t *testing.T) {}", failure="x")
    unknown = survivor(1)
    done = {
        1: unknown,
        2: survivor(2, reached="executed_unchecked"),
        3: survivor(3, reached="not_executed"),
        4: survivor(4, difference="tests"),
        5: survivor(5, difference="issue"),
        6: survivor(6, catching_test=caught),
        7: survivor(7, unconfirmed="its function answered alike"),
        8: survivor(8, verdict=Verdict.KILLED, killed_by="TestX"),
    }
    assert [m.shown for m in done.values()] == [True, True, False, True, True, True, False, False]
    assert hold_unknown(done) == 1
    assert unknown.unconfirmed == UNKNOWN_LINE and not unknown.shown
    assert [m.shown for m in done.values()] == [False, True, False, True, True, True, False, False]
    assert done[7].unconfirmed == "its function answered alike"


def test_a_budget_gone_before_the_fix_s_own_run_ends_is_a_timeout_not_a_failing_fix(
    tmp_path: Path,
) -> None:
    """go-zero-990's 25 s budget (5× a 5 s validation) went on preparing a cold environment:
    its fix's own run had a second left, and the measurement said "no judged test passes with
    the fix" — a claim about the fix nothing had tested. A run the budget cut says so."""
    box = go_sandbox(tmp_path)
    from spice_engine.langs.executor import Executor
    from spice_engine.strength.measure import measure

    slow = TEST.replace("{\n\tif Clamp", "{\n\ttime.Sleep(30 * time.Second)\n\tif Clamp")
    slow = slow.replace('import "testing"', 'import (\n\t"testing"\n\t"time"\n)')
    _project(tmp_path / "data", "clamp", FIX, slow)
    row = project_instance(tmp_path / "data", tmp_path / "repo")
    row["FAIL_TO_PASS"], row["PASS_TO_PASS"] = (
        json.dumps(["example.com/c/mathx::TestClampLow"]),
        "[]",
    )
    job = lang_job(row, tmp_path / "repo", "go")
    config = StrengthConfig(budget_s=3.0, floor_s=3.0)
    got = measure(job, Executor(tmp_path / "envs", box), tmp_path / "scratch", config)
    assert got.status == Status.TIMEOUT, (got.status, got.detail)
    assert got.detail.startswith("the time budget (3 s) ran out before the fix's own run ended")
    assert "passes with the fix" not in got.detail

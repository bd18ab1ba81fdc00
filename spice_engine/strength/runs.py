"""The test runs of a measurement: the shared mutant session, and single runs of a tree."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from pydantic import BaseModel

from spice_engine.validate.executor import Executor, Prepared, RunResult
from spice_engine.validate.outcomes import parse_pytest_log

PLUGIN = "_spice_mutants"
_PLUGIN_SOURCE = Path(__file__).with_name("mutant_plugin.py")


class SessionResult(BaseModel):
    baseline: list[str] | None
    """Judged tests that passed in the session's ordinary run (None: the plugin never got
    there: the session failed to start or was cut)."""
    unstable: list[str] = []
    """Of those, the ones that failed their control run (no mutant on, after failing under a
    mutant): they judge none of the session's mutants."""
    killed_by: dict[int, str | None]
    """Mutant -> the test that killed it (None: survived), for the mutants the session did."""
    crashed: int | None = None
    """The mutant that was running when the session ended early (a crash or the timeout)."""
    timed_out: bool = False
    log: str = ""


def files_of(tests: list[str]) -> list[str]:
    """The files holding `tests` (node ids), in order."""
    return list(dict.fromkeys(t.split("::", 1)[0] for t in tests))


def load_plugin(where: Path, settings: dict[str, object]) -> None:
    """`where` made the plugin's folder for one run: its source and the run's settings."""
    if where.exists():
        shutil.rmtree(where)
    where.mkdir(parents=True)
    shutil.copyfile(_PLUGIN_SOURCE, where / f"{PLUGIN}.py")
    (where / "settings.json").write_text(json.dumps(settings))


def run_tests(
    executor: Executor,
    prepared: Prepared,
    tree: Path,
    tests: list[str],
    where: Path,
    timeout_s: float,
    whole_files: bool = False,
) -> RunResult:
    """`tests` run once: their files on the command line, never their ids (an id with a space,
    a bracket cut open or an escape that pytest cannot find stops the whole run).

    `whole_files`: every test of those files, as SWE-bench's harness runs them (a test's outcome
    can hang on the tests run before it in its process): what a verdict on a wrong fix rests on.
    Otherwise exactly `tests`, chosen by node id inside pytest (spice_engine.strength.mutant_plugin).
    """
    files = [f for f in files_of(tests) if (tree / f).exists()]
    if not files:  # pytest given no path runs every test it finds
        return RunResult(log="", returncode=None, seconds=0.0)
    if whole_files:
        return executor.run(prepared, tree, files, timeout_s)
    load_plugin(where, {"tests": tests, "select": True})
    return executor.run(prepared, tree, files, timeout_s, where, PLUGIN)


class Runner:
    """Runs the tests of one prepared tree, each run within what is left of a deadline."""

    def __init__(
        self,
        executor: Executor,
        prepared: Prepared,
        tree: Path,
        scratch: Path,
        deadline: float,
        max_run_s: float,
    ) -> None:
        self.executor, self.prepared, self.tree, self.scratch = executor, prepared, tree, scratch
        self.deadline, self.max_run_s = deadline, max_run_s

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def _timeout(self) -> float:
        return max(1.0, min(self.max_run_s, self.left()))

    def outcomes(
        self, tests: list[str], whole_files: bool = False
    ) -> tuple[dict[str, str], RunResult]:
        where, timeout = self.scratch / "selected", self._timeout()
        done = run_tests(
            self.executor, self.prepared, self.tree, tests, where, timeout, whole_files
        )
        return parse_pytest_log(done.log), done

    def session(
        self, where: Path, files: list[str], tests: list[str], keys: list[int], per_test_s: float
    ) -> SessionResult:
        """`files` run once, then `tests` again under each mutant of `keys`."""
        budget = max(0.0, self.left() - 5.0)
        load_plugin(
            where, {"mutants": keys, "tests": tests, "per_test_s": per_test_s, "budget_s": budget}
        )
        done = self.executor.run(self.prepared, self.tree, files, self._timeout(), where, PLUGIN)
        baseline, unstable = None, []
        if (where / "baseline.json").is_file():
            baseline = list(json.loads((where / "baseline.json").read_text())["passed"])
        if (where / "unstable.txt").is_file():
            unstable = (where / "unstable.txt").read_text().split("\n")[:-1]
        killed_by: dict[int, str | None] = {}
        if (where / "results.jsonl").is_file():
            for line in (where / "results.jsonl").read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    killed_by[int(row["id"])] = row["killed_by"]
        crashed = None
        current = where / "current.txt"
        if current.is_file() and (lines := current.read_text().split()):
            last = int(lines[-1])
            crashed = None if last in killed_by else last
        return SessionResult(
            baseline=baseline,
            unstable=unstable,
            killed_by=killed_by,
            crashed=crashed,
            timed_out=done.timed_out,
            log=done.log,
        )

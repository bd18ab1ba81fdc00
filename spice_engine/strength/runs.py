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


def as_args(tests: list[str]) -> list[str]:
    """Command-line test ids for `tests`. An id with a space cannot be one, nor one SWE-bench's
    log parser cut at a space (`test_x[a-b` with no closing bracket: pytest answers "not found"
    and runs nothing at all): their function's id instead."""

    def arg(test: str) -> str:
        cut = " " in test or ("[" in test and not test.endswith("]"))
        return test.split("[", 1)[0] if cut else test

    return list(dict.fromkeys(arg(t) for t in tests))


class Runner:
    """Runs the tests of one prepared tree, each run within what is left of a deadline."""

    def __init__(
        self, executor: Executor, prepared: Prepared, tree: Path, deadline: float, max_run_s: float
    ) -> None:
        self.executor, self.prepared, self.tree = executor, prepared, tree
        self.deadline, self.max_run_s = deadline, max_run_s

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def _run(self, args: list[str], plugin_dir: Path | None = None) -> RunResult:
        timeout = max(1.0, min(self.max_run_s, self.left()))
        if plugin_dir is None:
            return self.executor.run(self.prepared, self.tree, args, timeout)
        return self.executor.run(self.prepared, self.tree, args, timeout, plugin_dir, PLUGIN)

    def outcomes(self, tests: list[str]) -> tuple[dict[str, str], RunResult]:
        done = self._run(as_args(tests))
        return parse_pytest_log(done.log), done

    def session(
        self, where: Path, files: list[str], tests: list[str], keys: list[int], per_test_s: float
    ) -> SessionResult:
        """The test files run once, then `tests` again under each mutant of `keys`."""
        if where.exists():
            shutil.rmtree(where)
        where.mkdir(parents=True)
        shutil.copyfile(_PLUGIN_SOURCE, where / f"{PLUGIN}.py")
        settings = {
            "mutants": keys,
            "tests": tests,
            "per_test_s": per_test_s,
            "budget_s": max(0.0, self.left() - 5.0),
        }
        (where / "settings.json").write_text(json.dumps(settings))
        done = self._run(files, where)
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

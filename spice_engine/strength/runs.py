"""The test runs of a measurement: the shared mutant session, and single runs of a tree."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from spice_engine.langs.base import Phase
from spice_engine.runs.session import Run, Session
from spice_engine.runs.validator_support import judged_run_targets
from spice_engine.strength.result import Difference, DifferenceIn
from spice_engine.validate.executor import RunResult
from spice_engine.validate.outcomes import Outcomes
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.reruns import files_of

PLUGIN = "_spice_mutants"
PLUGIN_SOURCE = Path(__file__).with_name("mutant_plugin.py")
WATCHERS = tuple(
    Path(__file__).with_name(f"{stem}_support.py")
    for stem in ("observe", "compare", "replay", "moves", "differential")
)
"""The differential run's modules, loaded beside the plugin (spice_engine.strength.mutant_plugin)."""


class Observed(BaseModel):
    """A survivor's differential run: its function's calls by the tests that reach it."""

    calls: int
    """Calls of the function in one run of those tests under the fix."""
    differs: bool | None
    """Did the mutant leave a value the fix's two runs agree on different? None: the runs
    could not say (no call, a test failed or ran past its limit, a run of the fix unlike the
    other, no neighbouring input reached the mutant)."""
    seen: Difference | None = None
    """On which inputs the difference showed."""
    where: DifferenceIn | None = None
    """In what a caller sees of it: what it returned or raised, or only what it stored."""
    why: str = ""
    """Why the runs could not say, when they could not."""
    seconds: float = 0.0


class SessionResult(BaseModel):
    baseline: list[str] | None
    """Judged tests that passed in the session's ordinary run (None: the plugin never got
    there: the session failed to start or was cut)."""
    unstable: list[str] = []
    """Of those, the ones that failed their control run (no mutant on, after failing under a
    mutant): they judge none of the session's mutants."""
    killed_by: dict[int, str | None]
    """Mutant -> the test that killed it (None: survived), for the mutants the session did."""
    reached: dict[str, list[int]] = {}
    """Judged test -> the mutants whose code its ordinary run executed."""
    observed: dict[int, Observed] = {}
    """Survivor -> its differential run, when one was made."""
    imported: list[str] | None = None
    """The tree's files the session had imported by its ordinary run (None: not said)."""
    crashed: int | None = None
    """The mutant that was running when the session ended early (a crash or the timeout)."""
    timed_out: bool = False
    log: str = ""


def session_result(run: Run) -> SessionResult:
    """What the mutant plugin sent through the run's channel."""
    baseline: list[str] | None = None
    imported: list[str] | None = None
    unstable: list[str] = []
    killed_by: dict[int, str | None] = {}
    reached: dict[str, list[int]] = {}
    observed: dict[int, Observed] = {}
    current: int | None = None
    for message in run.messages:
        kind = message.get("kind")
        if kind == "baseline" and isinstance(message.get("passed"), list):
            baseline = [str(t) for t in message["passed"]]
            files = message.get("imported")
            imported = [str(f) for f in files] if isinstance(files, list) else None
        elif kind == "unstable" and isinstance(message.get("test"), str):
            unstable.append(message["test"])
        elif kind == "reached" and isinstance(message.get("test"), str):
            ids = message.get("ids")
            reached[message["test"]] = (
                [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else []
            )
        elif kind == "current" and isinstance(message.get("id"), int):
            current = message["id"]
        elif kind == "result" and isinstance(message.get("id"), int):
            killer = message.get("killed_by")
            killed_by[message["id"]] = killer if isinstance(killer, str) else None
        elif kind == "observed" and isinstance(message.get("id"), int):
            calls, differs = message.get("calls"), message.get("differs")
            seen = message.get("seen")
            observed[message["id"]] = Observed(
                calls=calls if isinstance(calls, int) else 0,
                differs=differs if isinstance(differs, bool) else None,
                seen=seen if seen in ("tests", "nearby") else None,
                where=where if (where := message.get("where")) in ("returned", "stored") else None,
                why=str(message.get("why") or "")[:300],
                seconds=float(message.get("seconds") or 0.0),
            )
    crashed = current if current is not None and current not in killed_by else None
    return SessionResult(
        baseline=baseline,
        unstable=unstable,
        killed_by=killed_by,
        reached=reached,
        observed=observed,
        imported=imported,
        crashed=crashed,
        timed_out=run.timed_out,
        log=run.log,
    )


RUN_FACTOR = 3.0
"""A run under a mutant or a probe may take this multiple of the fix's (and its slack more)."""
SLACK_FLOOR_S = 10.0
"""The least slack a file's finished mutant run leaves a later one (a loaded machine's noise)."""


@dataclass
class FileRuns:
    """How long whole runs with a mutant of each file took to their end: a later mutant of the
    file may take that multiple of the longest, and the slack, when that is less than the
    bound the fix's own run set. The fix's first run builds the tree cold (jq's 45 s against
    5 s warm): a mutant making a test hang waited three times that, 150–180 s of a 300–450 s
    budget, before this; a mutant of a header, rebuilding much (fmt's 60 s), sets its own.
    The slack on top is no more than that run itself, short of `SLACK_FLOOR_S`: what it is for,
    the mutant's build, is in that run already (ripgrep's mutants ran in 2.5 s and a hanging one
    waited 37 s of an 84 s budget, leaving eight unrun)."""

    slack_s: float = 0.0
    longest: dict[str, float] = field(default_factory=dict)

    def cap(self, path: str, bound: float | None) -> float | None:
        if bound is None or path not in self.longest:
            return bound
        longest = self.longest[path]
        return min(bound, RUN_FACTOR * longest + min(self.slack_s, max(longest, SLACK_FLOOR_S)))

    def note(self, path: str, seconds: float, complete: bool) -> None:
        """A run ended; only one that gave every judged test an outcome says what a run costs
        (a build that failed, a crash, a cut run: not)."""
        if complete:
            self.longest[path] = max(self.longest.get(path, 0.0), seconds)


class Runner:
    """Runs the tests of one session's tree, each run within what is left of a deadline."""

    def __init__(self, session: Session, deadline: float, max_run_s: float) -> None:
        self.session, self.deadline, self.max_run_s = session, deadline, max_run_s
        self.runs = 0
        self.plugins = session.takes_plugins
        """The runner loads our pytest plugins: tests chosen by id, the mutant session."""
        self.targets = judged_run_targets(session.job)
        """What a run without the plugins is given (the language picks its tests there): the
        judged tests' files, where the language can run no more than those."""
        self.test_run_s: float | None = None
        """What a whole run of the tests may take, once the fix's own has set it."""
        self.by_file = FileRuns()
        self.controls: dict[tuple[str, ...], Outcomes] = {}
        """The fix's own whole run of these tests (what a mutant's run is read against)."""

    def control(self, tests: list[str]) -> Outcomes:
        """The outcomes of the fix's whole run of `tests` (made once; the tree holds the fix)."""
        key = tuple(tests)
        if key not in self.controls:
            self.controls[key] = self.outcomes(tests, whole_files=True).outcomes
        return self.controls[key]

    def left(self) -> float:
        return self.deadline - time.monotonic()

    @contextmanager
    def holding(self, seconds: float) -> Iterator[None]:
        """Within it, `seconds` of what is left are held back (the deadline that much sooner)."""
        self.deadline -= seconds
        try:
            yield
        finally:
            self.deadline += seconds

    def bound_runs(self, fix_s: float, slack_s: float, validation_s: float | None) -> None:
        """Each later whole run stopped at a multiple of the fix's own (`fix_s`) and a slack,
        or at what the validation's runs took in all when that is longer (a mutant of a header
        rebuilds what the fix's run found built: fmt's took 130–200 s): a mutant that makes a
        test hang (go-zero-1456's waited 430 s of a 448 s budget) is cut off there, `not_run`,
        and leaves the budget to the others."""
        bound = max(RUN_FACTOR * fix_s + slack_s, validation_s or 0.0)
        self.test_run_s = min(self.max_run_s, bound)
        self.by_file.slack_s = slack_s

    def cap_for(self, path: str) -> float | None:
        """What a whole run with a mutant of `path` may take (`FileRuns.cap`)."""
        return self.by_file.cap(path, self.test_run_s)

    def ran(self, path: str, tests: list[str], run: Run) -> None:
        """Note a whole run with a mutant of `path` (`FileRuns.note`)."""
        complete = not run.killed and bool(tests) and all(t in run.outcomes for t in tests)
        self.by_file.note(path, run.seconds, complete)

    def _timeout(self, cap: float | None = None) -> float:
        return max(1.0, min(cap or self.max_run_s, self.left()))

    def _name(self, kind: str) -> str:
        self.runs += 1
        return f"{kind}-{self.runs}"

    def outcomes(
        self, tests: list[str], whole_files: bool = False, cap: float | None = None
    ) -> Run:
        """`tests` run once: their files on the command line, never their ids (an id with a
        space, a bracket cut open or an escape that pytest cannot find stops the whole run).

        `whole_files`: every test of those files, as SWE-bench's harness runs them (a test's
        outcome can hang on the tests run before it in its process): what a verdict on a wrong
        fix rests on. Otherwise exactly `tests`, chosen by node id inside pytest
        (spice_engine.strength.mutant_plugin).

        A runner without our plugins cannot choose tests, nor always name their files (Go's
        ids are packages'): it runs what validation ran, whole, within `cap` seconds (None: the
        bound the fix's own run set)."""
        if not self.plugins:
            return self.session.run(
                self._name("whole"), self.targets, self._timeout(cap or self.test_run_s)
            )
        tree = self.session.tree
        files = [f for f in files_of(tests) if tree.tracked(f)]
        if not files:  # pytest given no path runs every test it finds
            return Run(outcomes={}, messages=[], log="", seconds=0.0)
        if whole_files:
            return self.session.run(self._name("whole"), files, self._timeout())
        plugin = self.session.plugin(PLUGIN_SOURCE, PLUGIN, {"tests": tests, "select": True})
        return self.session.run(self._name("selected"), files, self._timeout(), plugin)

    def run_phase(self, kind: str, phase: Phase, cap: float | None = None) -> RunResult | None:
        """A language's own command in the tree, within what is left of the deadline and of
        `cap` seconds (None: the language's environments run only tests)."""
        return self.session.run_phase(self._name(kind), phase, self._timeout(cap))

    def driven(self, plugin: Plugin, timeout_s: float) -> Run:
        """What validation ran, run by our driver `plugin` (a runner loading no plugin)."""
        return self.session.run(
            self._name("watched"), self.targets, self._timeout(timeout_s), plugin
        )

    def alone(self, plugin: Plugin, timeout_s: float) -> Run:
        """Our module `plugin` run in the tree instead of the tests (`Plugin.alone`)."""
        return self.session.run(self._name("examples"), [], self._timeout(timeout_s), plugin)

    def run_files(self, files: list[str]) -> Run:
        """`files` run whole, as they are (a test just written there). A runner without our
        plugins is given what validation gave it and them: its own command picks their
        package's or module's tests with the rest."""
        if self.plugins:
            return self.session.run(self._name("written"), files, self._timeout())
        args = self.targets + [f for f in files if f not in self.targets]
        return self.session.run(self._name("written"), args, self._timeout(self.test_run_s))

    def mutant_session(
        self,
        files: list[str],
        tests: list[str],
        keys: list[int],
        per_test_s: float,
        observe: dict[int, tuple[str, str, bool]] | None = None,
    ) -> SessionResult:
        """`files` run once, then `tests` again under each mutant of `keys`; each survivor
        named in `observe` (its file and function, and whether it may wait: a crash-prone
        operator, never the example) gets its differential run."""
        budget = max(0.0, self.left() - 5.0)
        watched = {
            str(k): {"path": p, "function": f, "late": late}
            for k, (p, f, late) in (observe or {}).items()
        }
        settings = dict(
            mutants=keys, tests=tests, per_test_s=per_test_s, budget_s=budget, observe=watched
        )
        plugin = self.session.plugin(PLUGIN_SOURCE, PLUGIN, settings, WATCHERS)
        return session_result(
            self.session.run(self._name("mutants"), files, self._timeout(), plugin)
        )

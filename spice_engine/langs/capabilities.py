"""What a language may do beyond the seam (spice_engine.langs.base), declared by having the
method and checked here only: the executor and the session ask these functions, never a
language's name.

- `OwnEnvironments`: the language builds its environments itself instead of from its plan's
  phases (Python: its recipes, with uv, a thin venv per job over a shared one).
- `VersionGroups`: the language's rows are grouped by version, one environment per group
  built at its newest base commit (Python, as SWE-bench does); the others plan each tree.
- `LoadsPlugins`: its runner loads our pytest plugins in the test process, so reruns happen
  inside the session, a mutant is switched on in-process and the differential run can watch
  calls (Python under pytest). Without it each run is a whole new run of the test command.
- `DrivenRuns`: its runner is not pytest but runs in one process our driver can start and
  watch (sympy's `bin/test`), so the differential run can be made there
  (spice_engine.strength.watched). Without it and without plugins, survivors get none.
- `PartialInstalls`: an install that failed may still have built what the tests need (a Maven
  reactor with one module that cannot be built here); the language reads the install's log and
  says what it left out (`Plan.left_out`). Without it a failed install fails the environment.
- `FailureTexts`: the language reads each failed test's own failure text from its runner's
  report (its message, its output), so a test that failed for want of the network can be told
  apart (spice_engine.validate.offline). Without it such tests are only "failing both".
- `CompiledCode`: the language compiles the unit a file belongs to (a C translation unit, a
  Go package, a crate, a Java package's classes) and prints a digest of its code: a surviving
  mutant whose code is the fix's is equivalent (spice_engine.strength.same_code).
- `LineProbes`: a statement failing the test that runs it can be placed before the statement
  holding a line (spice_engine.langs.line_probes): which tests execute a survivor's line, where
  no plugin of ours watches (spice_engine.strength.line_probe).
- `CallTraces`: the functions holding survivors can be made to write each call the tests make,
  what it was given and what it answered (spice_engine.langs.go_trace, rust_trace, java_trace),
  so a survivor whose function answers the tests' own calls otherwise is shown on evidence a
  caller sees, and one answering them alike is held (spice_engine.strength.traced). Without it
  and without plugins a survivor some test executes is shown on that alone.
- `WrittenTests`: a test file the language's test command runs can be placed for a survivor
  (spice_engine.langs.written_tests), so a model's test that catches it can be proven in the
  sandbox (spice_engine.strength.catching). Without it (C, C++) no test is written.
- `IssueExamples`: the code an issue gives as its example can be read from its text and run
  alone in the tree's environment, by our driver (Python: spice_engine.langs.python_examples),
  so a survivor that changes what the reporter's example prints is shown on the issue's own
  input (spice_engine.strength.issue_examples). Without it the issue's text is only matched
  against the survivors' function names.
- `Programs`: the tree builds programs a reporter runs from a shell (jq, ripgrep's `rg`): their
  names are read from its build files and a command builds them in the job's build folder
  (spice_engine.langs.programs), so the commands an issue shows (`$ jq -n '.[1.5] = 42'`) run
  with the fix's build and each survivor's (spice_engine.strength.shell_examples).
- `NarrowRuns`: a wrong fix's run can be given the test patch's test files alone, and the
  language then runs only their tests (Java: their classes, by `-Dtest`), not every test of the
  modules the fix touches: what a mutant is judged by is theirs (spice_engine.strength.runs),
  while validation's pass-to-pass needs the modules whole. Without it a mutant's run is
  validation's.
- `CopyingCalls`: methods that only copy their receiver (Rust's `clone`): a mutant without one
  that still builds moves the same value instead, never a wrong fix, so none is made.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from spice_engine.langs.base import Files, Language, Phase, Plan
from spice_engine.langs.prepared import EnvRequest, Prepared
from spice_engine.langs.programs import ProgramBuild
from spice_engine.langs.python_versions import Group
from spice_engine.langs.written_tests import WrittenPlace
from spice_engine.validate.executor import RunResult, SetupTree
from spice_engine.validate.plugin_run import Plugin
from spice_engine.validate.sandbox import Sandbox
from spice_engine.validate.tree import Tree


class Environments(Protocol):
    """Builds (or reuses) a language's environments and runs a job's tests in them."""

    def prepare(
        self, request: EnvRequest, tree: Tree, job: Path, setup_tree: SetupTree | None
    ) -> Prepared: ...

    def run(
        self,
        prepared: Prepared,
        tree: Tree,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
    ) -> RunResult: ...


@runtime_checkable
class OwnEnvironments(Protocol):
    def environments(
        self, envs_dir: Path, sandbox: Sandbox, install_timeout_s: float
    ) -> Environments: ...


@runtime_checkable
class LoadsPlugins(Protocol):
    def loads_plugins(self, plan: Plan) -> bool: ...


@runtime_checkable
class DrivenRuns(Protocol):
    def driven_runs(self, plan: Plan) -> bool: ...

    def driven_selection(self, plan: Plan, tests: list[str]) -> list[str]: ...


@runtime_checkable
class VersionGroups(Protocol):
    def version_groups(
        self, rows: list[dict[str, Any]], git_dirs: dict[str, Path]
    ) -> dict[str, Group]: ...


@runtime_checkable
class PartialInstalls(Protocol):
    def partly_installed(self, plan: Plan, files: Files, log: str) -> Plan | None:
        """`plan` with what its failed install left out, when the tests of `files`' changes
        can do without it; None when they cannot (the environment failed). `log` is the
        install's: the sandboxed build wrote it, so it is read as untrusted text."""
        ...


@runtime_checkable
class FailureTexts(Protocol):
    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        """Failed test id -> what its runner reported of its failure, from one run of the
        test command (as `Language.outcomes` reads it)."""
        ...


def failure_texts(language: Language, channel: str, log: str, plan: Plan | None) -> dict[str, str]:
    """Each failed test's failure text from one run ({}: the language cannot say), each
    cut to `TEXT_LIMIT` (a test printing megabytes tells no more)."""
    if not isinstance(language, FailureTexts):
        return {}
    return {t: text[:TEXT_LIMIT] for t, text in language.failure_texts(channel, log, plan).items()}


TEXT_LIMIT = 20_000
"""Kept of one failed test's text."""


@runtime_checkable
class CopyingCalls(Protocol):
    copying_calls: frozenset[str]


@runtime_checkable
class CompiledCode(Protocol):
    compiled_to: str
    """What its compiler writes, as a verdict's reason names it (`object code`, `bytecode`)."""

    def code_command(self, files: Files, path: str, plan: Plan) -> Phase | None:
        """A command compiling the unit `path` belongs to as the tests' build does, whose
        channel is that unit's code's digest (spice_engine.langs.compiled_code); None when no
        one unit holds all of `path`'s code (a header)."""
        ...

    def code_misses(self, source: str, line: int) -> str | None:
        """Why the unit's code may not hold what `line` of `source` compiles to (a generic
        function compiled where it is used, code another configuration builds); None when it
        holds it."""
        ...


def compiled_code(language: Language) -> CompiledCode | None:
    return language if isinstance(language, CompiledCode) else None


@runtime_checkable
class LineProbes(Protocol):
    def line_probe(self, path: str, source: str, at: int) -> str | None:
        """`source` (of `path`) with a statement failing the test running it before the
        statement holding byte `at`, every line kept where it was; None when none can go
        there."""
        ...


def line_probe(language: Language, path: str, source: str, at: int) -> str | None:
    """`source` probed at byte `at` (None: the language places no probe there, or none)."""
    if not isinstance(language, LineProbes):
        return None
    return language.line_probe(path, source, at)


Traced = tuple[str, list[str]]
"""A traced file's text, and the id of the function holding each chosen byte."""


class Tracer(Protocol):
    def __call__(self, source: str, at: list[int], tag: str, mark: str) -> Traced | None:
        """`source` with the function holding each byte of `at` appending a line begun with
        `mark` to `/tmp/<mark>` for each call the tests make (what it was given, returned and
        left behind, hashed: spice_engine.strength.traces), every line kept where it was; and
        each byte's function's id (`tag` names the file). None when one is in no function it
        can trace."""
        ...


@runtime_checkable
class CallTraces(Protocol):
    call_tracer: Tracer
    call_callers: Callable[[str, int], list[int]]
    """A byte inside each function of the source calling the private function holding the
    given byte ([] when that function is seen outside its file): whose answers are what a
    caller of the private one sees."""


def call_traces(language: Language) -> CallTraces | None:
    return language if isinstance(language, CallTraces) else None


def callers(language: Language, source: str, at: int) -> list[int]:
    return language.call_callers(source, at) if isinstance(language, CallTraces) else []


def traced(language: Language, path: str, source: str, at: list[int], mark: str) -> Traced | None:
    """`source` (of `path`) traced at `at` (None: not the language's code, a test, or a
    language whose calls are not traced)."""
    if not isinstance(language, CallTraces):
        return None
    if language.grammar(path) is None or language.is_test_path(path):
        return None
    return language.call_tracer(source, at, path, mark)


@runtime_checkable
class ReceivedValues(Protocol):
    received_values: Callable[[str, str, str], str | None]
    """A test file's source, named, and the mark: the file recording what each of its calls
    got back (spice_engine.strength.traces.received_alike), every line where it was; None when
    it has no such call or does not parse."""


def received_values(language: Language, path: str, source: str, mark: str) -> str | None:
    """`source` (the test file `path`) recording what its calls got back (None: the language
    records none)."""
    if not isinstance(language, ReceivedValues) or language.grammar(path) is None:
        return None
    return language.received_values(source, path, mark)


@runtime_checkable
class SideBySideRuns(Protocol):
    """A language whose run after the fix gains nothing from the run before it in the same tree
    (no build there that the second run would reuse: Maven compiles a changed module again,
    JavaScript builds nothing), so the two may go on at once, each in a tree of its own."""

    side_by_side_runs: bool


def side_by_side(language: Language) -> bool:
    """Whether validation's runs before and after the fix may go on at once."""
    return isinstance(language, SideBySideRuns) and language.side_by_side_runs


@runtime_checkable
class NarrowRuns(Protocol):
    def judged_targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        """What a wrong fix's run is given: the test files whose tests alone are run."""
        ...


def judged_targets(language: Language, test_files: list[str], fix_files: list[str]) -> list[str]:
    """What a run judging a wrong fix is given (`targets`, where the language runs no less)."""
    if isinstance(language, NarrowRuns):
        return language.judged_targets(test_files, fix_files)
    return language.targets(test_files, fix_files)


def version_groups(language: Language) -> VersionGroups | None:
    return language if isinstance(language, VersionGroups) else None


def own_environments(language: Language) -> OwnEnvironments | None:
    return language if isinstance(language, OwnEnvironments) else None


@runtime_checkable
class IssueExamples(Protocol):
    def issue_examples(self, problem: str, changed: list[str]) -> list[str]: ...


def issue_examples(language: Language, problem: str, changed: list[str]) -> list[str]:
    """The example code `problem` (an issue's text) gives, to run alone in the language's
    environment, for a fix changing the files `changed` ([]: none, or the language cannot
    run one)."""
    if not isinstance(language, IssueExamples):
        return []
    return language.issue_examples(problem, changed)


@runtime_checkable
class Programs(Protocol):
    def programs(self, files: Files) -> list[str]:
        """The names of the programs the tree builds (what a reporter types)."""
        ...

    def program_build(self, files: Files, plan: Plan) -> ProgramBuild | None:
        """How they are built where the tests' build leaves its output (None: no build)."""
        ...


def programs(language: Language) -> Programs | None:
    return language if isinstance(language, Programs) else None


@runtime_checkable
class ConsoleScripts(Protocol):
    def entry_points(self, files: Files) -> dict[str, str]:
        """Each program the tree installs -> the `module:function` it calls (Python)."""
        ...


def entry_points(language: Language, files: Files) -> dict[str, str]:
    """What each of the tree's programs calls, where its language says ({}: it cannot)."""
    return language.entry_points(files) if isinstance(language, ConsoleScripts) else {}


def takes_plugins(language: Language, plan: Plan) -> bool:
    """Whether runs in `plan`'s environment load our pytest plugins."""
    return isinstance(language, LoadsPlugins) and language.loads_plugins(plan)


def driven_runs(language: Language, plan: Plan) -> bool:
    """Whether our driver can run `plan`'s test command in its own process, watched."""
    return isinstance(language, DrivenRuns) and language.driven_runs(plan)


def driven_selection(language: Language, plan: Plan, tests: list[str]) -> list[str]:
    """The arguments after the files that make a driven run run only `tests` ([]: all)."""
    return language.driven_selection(plan, tests) if isinstance(language, DrivenRuns) else []


def partly_installed(language: Language, plan: Plan, files: Files, log: str) -> Plan | None:
    """What a failed install of `plan` left usable (None: nothing, or a language that cannot tell)."""
    if not isinstance(language, PartialInstalls):
        return None
    return language.partly_installed(plan, files, log)


def copying_calls(language: Language) -> frozenset[str]:
    """Methods whose removal (`x.clone()` → `x`) makes no mutant in `language`."""
    return language.copying_calls if isinstance(language, CopyingCalls) else frozenset()


@runtime_checkable
class WrittenTests(Protocol):
    def written_test(self, files: Files, path: str, test_files: list[str]) -> WrittenPlace | None:
        """Where a test catching a survivor in `path` goes, given the test patch's files (None:
        nowhere the test command would run it)."""
        ...


def written_place(
    language: Language, files: Files, path: str, test_files: list[str]
) -> WrittenPlace | None:
    """Where a written test for a survivor in `path` goes (None: the language has no place)."""
    if not isinstance(language, WrittenTests):
        return None
    return language.written_test(files, path, test_files)

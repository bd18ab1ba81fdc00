"""One instance's session: its checks, tree, environment and test runs, for validation and test
strength alike (each is a short program over it).

The session owns the host's side of the door: the tree is checked out and patched by the host
from its own record (spice_engine.validate.tree), plugin folders are the host's and read-only in
the sandbox, results come back through the run's channel, and every failure ends as one
`Status` through one mapping (`stopped_by`).
"""

from __future__ import annotations

import gzip
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from spice_engine.errors import InputError
from spice_engine.langs import FALLBACK, languages
from spice_engine.langs.base import Phase, ToolchainMissing
from spice_engine.langs.capabilities import driven_runs, driven_selection, takes_plugins
from spice_engine.langs.executor import Executor
from spice_engine.langs.prepared import EnvRequest, Prepared
from spice_engine.langs.python_interpreters import MissingPython
from spice_engine.langs.python_recipe import Recipe
from spice_engine.redaction import redacted_excerpt
from spice_engine.validate import door, gitwork, submodules
from spice_engine.validate.executor import EnvBuildError, RunResult, SetupTree
from spice_engine.validate.outcomes import Outcomes
from spice_engine.validate.plugin_run import Plugin, make_plugin, messages
from spice_engine.validate.sandbox import SandboxUnavailable
from spice_engine.validate.tree import PatchRefused, Tree, checkout

DETAIL_CHARS = 6000


class Status(StrEnum):
    """How a validation or a measurement of an instance ended."""

    VALID = "valid"
    MEASURED = "measured"
    NO_FAIL_TO_PASS = "no_fail_to_pass"
    NO_MUTANTS = "no_mutants"
    BASELINE_FAILED = "baseline_failed"
    PATCH_DOES_NOT_APPLY = "patch_does_not_apply"
    MISSING_COMMIT = "missing_commit"
    MISSING_PYTHON = "missing_python"
    MISSING_TOOLCHAIN = "missing_toolchain"
    ENVIRONMENT_FAILED = "environment_failed"
    TESTS_DID_NOT_RUN = "tests_did_not_run"
    TIMEOUT = "timeout"
    RESOURCE_LIMIT = "resource_limit"
    SANDBOX_UNAVAILABLE = "sandbox_unavailable"
    ERROR = "error"


class Stopped(Exception):
    """The session cannot go on; the instance ends with `status`."""

    def __init__(self, status: Status, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def stopped_by(exc: BaseException) -> Stopped | None:
    """The one mapping from what went wrong to how the instance ends (None: not ours to map)."""
    if isinstance(exc, Stopped):
        return exc
    table: list[tuple[type[BaseException], Status]] = [
        (PatchRefused, Status.PATCH_DOES_NOT_APPLY),
        (MissingPython, Status.MISSING_PYTHON),
        (ToolchainMissing, Status.MISSING_TOOLCHAIN),
        (EnvBuildError, Status.ENVIRONMENT_FAILED),
        (SandboxUnavailable, Status.SANDBOX_UNAVAILABLE),
        (InputError, Status.ERROR),
        (OSError, Status.ERROR),
    ]
    for kind, status in table:
        if isinstance(exc, kind):
            head = DETAIL_CHARS if status == Status.ENVIRONMENT_FAILED else 0
            return Stopped(status, redacted_excerpt(str(exc), head=head, tail=0 if head else 2000))
    return None


class Job(BaseModel):
    """One instance to validate or measure, with what the whole run worked out for its group."""

    instance: dict[str, object]
    git_dir: Path
    version: str = ""
    recipe: Recipe | None = None
    """Python's environment recipe (the planner's, by version); the other languages plan
    their environments from the tree."""
    timeout_s: float = 1800.0
    reruns: int = 1
    rerun_share: float = 0.25
    logs_dir: Path | None = None
    """Where to keep this instance's run logs (compressed); None: not kept."""
    setup_commit: str | None = None
    """The environment's own commit: a shared environment not built yet is built there."""
    language: str = FALLBACK
    """Whose seam builds the environment and reads the results (spice_engine.langs)."""
    submodules: dict[str, Path] = Field(default_factory=dict)
    """Repositories the run was given (`owner/name` -> git directory): a submodule whose URL
    names one is checked out from it (spice_engine.validate.submodules)."""

    @property
    def request(self) -> EnvRequest:
        """The environment this job needs, as the executor is asked for it."""
        repo = str(self.instance.get("repo"))
        return EnvRequest(
            repo=repo, language=self.language, version=self.version, recipe=self.recipe
        )

    @property
    def base(self) -> str:
        return str(self.instance.get("base_commit") or "")

    @property
    def test_patch(self) -> str:
        return str(self.instance.get("test_patch") or "")

    @property
    def patch(self) -> str:
        return str(self.instance.get("patch") or "")


class Run(BaseModel):
    """One test run: each test's status, the plugin's messages, the log."""

    model_config = ConfigDict(frozen=True)

    outcomes: Outcomes
    messages: list[dict[str, Any]]
    log: str
    seconds: float
    killed: str | None = None
    channel: str = Field(default="", repr=False)
    """The run's results channel as it came (what `outcomes` were read from)."""

    @property
    def timed_out(self) -> bool:
        return self.killed == "timeout"


def check(job: Job, patches: list[str]) -> None:
    """Before any checkout: the base commit exists and the patches apply there, safely."""
    if not job.base or not gitwork.has_commit(job.git_dir, job.base):
        raise Stopped(Status.MISSING_COMMIT, f"base_commit {job.base!r} not in repo")
    if problem := gitwork.apply_problem(job.git_dir, job.base, patches):
        raise Stopped(Status.PATCH_DOES_NOT_APPLY, problem)


class Session:
    """A tree of the base commit with its environment ready, and runs of its tests."""

    def __init__(self, job: Job, executor: Executor, home: Path, tree: Tree) -> None:
        self.job, self.executor, self.home, self.tree = job, executor, home, tree
        self.durations: dict[str, float] = {}
        self.language = languages()[job.language]
        self.prepared: Prepared | None = None
        self.last_log = ""

    def prepare(self, scratch: Path, tree: Tree | None = None) -> Prepared:
        """The environment for `tree` (this session's by default), `scratch` its job space."""
        job = self.job
        setup: SetupTree | None = None
        if job.setup_commit and job.setup_commit != job.base:
            commit = job.setup_commit
            setup = lambda files=True: tree_of(job, commit, self.home, "setup", files)  # noqa: E731
        elif job.recipe is None:
            # Planned from the tree: what the fix's manifests ask for too. (A recipe was worked
            # out for the whole version from its own commit.)
            setup = self._with_patches
        scratch.mkdir(mode=0o755, exist_ok=True)
        return self.executor.prepare(job.request, tree or self.tree, scratch, setup)

    @property
    def takes_plugins(self) -> bool:
        """Whether runs load our pytest plugins (reruns in session, selection by id, mutants
        switched in-process): the one capability check (spice_engine.langs.capabilities)."""
        return self.prepared is not None and takes_plugins(self.language, self.prepared.plan)

    @contextmanager
    def _with_patches(self, files: bool = True) -> Iterator[Tree]:
        with tree_of(self.job, self.job.base, self.home, "setup", files) as tree:
            tree.apply(self.job.test_patch)
            tree.apply(self.job.patch)
            yield tree

    @property
    def driven_runs(self) -> bool:
        """Whether our driver can run the test command watched, where no plugin loads
        (spice_engine.langs.capabilities)."""
        return self.prepared is not None and driven_runs(self.language, self.prepared.plan)

    def driven_selection(self, tests: list[str]) -> list[str]:
        """What makes a driven run run only `tests` ([]: it cannot choose)."""
        if self.prepared is None:
            return []
        return driven_selection(self.language, self.prepared.plan, tests)

    def plugin(
        self,
        source: Path,
        name: str,
        settings: dict[str, Any],
        extras: tuple[Path, ...] = (),
        drives: bool = False,
        alone: bool = False,
    ) -> Plugin:
        return make_plugin(self.home, source, name, settings, extras, drives, alone)

    def run(
        self,
        name: str,
        args: list[str],
        timeout_s: float,
        plugin: Plugin | None = None,
        tree: Tree | None = None,
        prepared: Prepared | None = None,
    ) -> Run:
        """`args` given to the test command once; the log kept when the job keeps logs."""
        ready = prepared or self.prepared
        assert ready is not None, "prepare() first"
        done = self.executor.run(ready, tree or self.tree, args, timeout_s, plugin)
        self.durations[name] = done.seconds
        self.last_log = done.log
        self._keep(name, done.log)
        if self.job.logs_dir is not None and done.channel and plugin is None:
            # the results themselves, not a plugin's
            packed = gzip.compress(done.channel.encode("utf-8"), mtime=0)
            door.write_bytes(self.job.logs_dir, f"{name}.results.gz", packed)
        return Run(
            outcomes=self.language.outcomes(done.channel, done.log, ready.plan),
            messages=messages(done.channel),
            log=done.log,
            seconds=done.seconds,
            killed=done.killed,
            channel=done.channel,
        )

    def run_phase(self, name: str, phase: Phase, timeout_s: float) -> RunResult | None:
        """A language's own command (not its tests) in this session's tree, as the tests run
        (None: the language's environments run only tests); the log kept as a run's is."""
        assert self.prepared is not None, "prepare() first"
        done = self.executor.run_phase(self.prepared, self.tree, phase, timeout_s)
        if done is not None:
            self.durations[name] = done.seconds
            self._keep(name, done.log)
        return done

    def _keep(self, name: str, log: str) -> None:
        if self.job.logs_dir is not None:
            self.job.logs_dir.mkdir(parents=True, exist_ok=True)
            packed = gzip.compress(log.encode("utf-8"), mtime=0)
            door.write_bytes(self.job.logs_dir, f"{name}.log.gz", packed)

    @contextmanager
    def twin(self, name: str = "twin") -> Iterator[tuple[Tree, Prepared]]:
        """A second tree of the base commit with its own job space (the environment shared)."""
        with tree_of(self.job, self.job.base, self.home, name) as tree:
            space = Path(tempfile.mkdtemp(dir=self.home, prefix=f"{name}-job-"))
            again = self.prepared and self.executor.prepare_again(self.prepared, tree, space)
            yield tree, again or self.prepare(space, tree)


@contextmanager
def tree_of(
    job: Job, commit: str, scratch: Path, name: str = "tree", files: bool = True
) -> Iterator[Tree]:
    """A new tree of `commit`, with the submodules the run's repositories hold (`files=False`:
    the host's record of it alone)."""
    with checkout(job.git_dir, commit, scratch, name, files) as tree:
        if job.submodules and files:
            repo = str(job.instance.get("repo") or "")
            submodules.fill(tree.path, job.git_dir, commit, repo, job.submodules)
        yield tree


@contextmanager
def open_session(job: Job, executor: Executor, scratch: Path) -> Iterator[Session]:
    """A session on a new tree of the base commit, its environment prepared; the whole
    scratch of it removed afterwards. `scratch` is the host's: nothing in it but the job
    spaces is ever bound writable into a sandbox."""
    scratch.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(dir=scratch.absolute(), prefix="session-"))
    try:
        with tree_of(job, job.base, home) as tree:
            session = Session(job, executor, home, tree)
            t0 = time.monotonic()
            session.prepared = session.prepare(home / "job")
            session.durations["environment"] = round(time.monotonic() - t0, 3)
            yield session
    finally:
        shutil.rmtree(home, ignore_errors=True)

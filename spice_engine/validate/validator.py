"""Validate one instance: apply checks, environment, the tests before and after the gold patch."""

from __future__ import annotations

import gzip
import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from spice_engine.errors import InputError
from spice_engine.validate import gitwork, reruns
from spice_engine.validate.executor import (
    EnvBuildError,
    Executor,
    Prepared,
    RunResult,
    SetupTree,
)
from spice_engine.validate.outcomes import Accounting, account, compute_lists, parse_pytest_log
from spice_engine.validate.pythons import MissingPython
from spice_engine.validate.recipe import Recipe
from spice_engine.validate.sandbox import SandboxUnavailable

Status = Literal[
    "valid",
    "no_fail_to_pass",
    "patch_does_not_apply",
    "missing_commit",
    "missing_python",
    "environment_failed",
    "tests_did_not_run",
    "timeout",
    "resource_limit",
    "sandbox_unavailable",
    "error",
]
_IMPORT_FAILURE = re.compile(r"(?:ModuleNotFoundError|ImportError): [^\n]+")
FLAKY_RERUNS = 1
RERUN_SHARE = 0.25
"""Of a run's time limit, what its in-session reruns may use; the rest rerun in processes."""


class Validation(BaseModel):
    """What `spice.validation` records for an instance."""

    status: Status
    detail: str = ""
    python: str | None = None
    recipe: dict[str, object] | None = None
    environment: str | None = None
    environment_built: bool = False
    durations: dict[str, float] = Field(default_factory=dict)
    flaky: list[str] = Field(default_factory=list)
    reruns: Literal["in_session", "new_processes", "off"] = "off"
    """How the fail-to-pass tests were run a second time (to tell flaky ones)."""
    test_files: list[str] = Field(default_factory=list)
    tests: Accounting | None = None
    """Where every test seen in the logs went (counts, and the tests in neither list)."""
    logs: str | None = None
    """Directory holding this instance's run logs (`before.log.gz`, `after.log.gz`, ...)."""


class Validated(BaseModel):
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    validation: Validation


class Job(BaseModel):
    """One instance to validate, with what the whole run worked out for its group."""

    instance: dict[str, object]
    git_dir: Path
    version: str
    recipe: Recipe
    timeout_s: float = 900.0
    reruns: int = FLAKY_RERUNS
    rerun_share: float = RERUN_SHARE
    logs_dir: Path | None = None
    """Where to keep this instance's run logs (compressed); None: not kept."""
    setup_commit: str | None = None
    """The environment's own commit: a shared environment not built yet is built there."""


def test_files(test_patch: str) -> list[str]:
    """The Python files the test patch leaves in place (SWE-bench runs the files it touches)."""
    from unidiff import PatchSet

    return [
        f.path for f in PatchSet(test_patch) if not f.is_removed_file and f.path.endswith(".py")
    ]


def _patch_problem(job: Job) -> str | None:
    base, inst = str(job.instance["base_commit"]), job.instance
    test, gold = str(inst.get("test_patch") or ""), str(inst.get("patch") or "")
    for name, patches in (("test_patch", [test]), ("patch", [gold]), ("both", [test, gold])):
        if problem := gitwork.apply_problem(job.git_dir, base, patches):
            return f"{name} does not apply at base_commit: {problem}"
    return None


def validate(job: Job, executor: Executor, scratch: Path) -> Validated:
    """Never raises for a problem of the instance or its environment: that is a status."""
    started = time.monotonic()
    base = str(job.instance.get("base_commit") or "")
    record = Validation(status="error", python=job.recipe.python)
    record.recipe = {**job.recipe.model_dump(), "install_cmds": job.recipe.install_cmds()}
    try:
        if not base or not gitwork.has_commit(job.git_dir, base):
            record.status, record.detail = "missing_commit", f"base_commit {base!r} not in repo"
            return Validated(validation=record)
        t0 = time.monotonic()
        problem = _patch_problem(job)
        record.durations["apply_check"] = round(time.monotonic() - t0, 3)
        if problem:
            record.status, record.detail = "patch_does_not_apply", problem
            return Validated(validation=record)
        scratch.mkdir(parents=True, exist_ok=True)
        job_dir = Path(tempfile.mkdtemp(dir=scratch, prefix="job-"))
        try:
            return _run_tests(job, executor, job_dir, record)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
    except (InputError, OSError) as exc:
        record.status, record.detail = "error", str(exc)[-2000:]
        return Validated(validation=record)
    finally:
        record.durations["total"] = round(time.monotonic() - started, 3)


def _run_tests(job: Job, executor: Executor, job_dir: Path, record: Validation) -> Validated:
    inst = job.instance
    test, gold = str(inst.get("test_patch") or ""), str(inst.get("patch") or "")
    files = test_files(test)
    record.test_files = files
    with gitwork.worktree(job.git_dir, str(inst["base_commit"]), job_dir) as tree:
        try:
            prepared = executor.prepare(
                str(inst.get("repo")), job.version, job.recipe, tree, job_dir, _setup(job, job_dir)
            )
        except MissingPython as exc:
            record.status, record.detail = "missing_python", str(exc)
            return Validated(validation=record)
        except EnvBuildError as exc:
            record.status, record.detail = "environment_failed", str(exc)[:6000]
            return Validated(validation=record)
        except SandboxUnavailable as exc:
            record.status, record.detail = "sandbox_unavailable", str(exc)
            return Validated(validation=record)
        record.environment, record.environment_built = prepared.key, prepared.built
        record.durations["environment"] = prepared.seconds
        gitwork.apply(tree, test)
        runs = _Runs(executor, prepared, tree, job.timeout_s, record, job.logs_dir)
        budget = job.timeout_s * job.rerun_share
        in_session = reruns.plugin_dir(job_dir / "rerun-before", budget) if job.reruns else None
        before = runs.go("before", files, rerun_dir=in_session)
        if before is None:
            return Validated(validation=record)
        gitwork.apply(tree, gold)
        passed = [t for t, s in before.items() if s == "PASSED"]
        after_session = (
            reruns.plugin_dir(job_dir / "rerun-after", budget, passed) if job.reruns else None
        )
        after = runs.go("after", files, rerun_dir=after_session)
        if after is None:
            return Validated(validation=record)
        if not before and not after:
            # Nothing collected either way: an import failing at start-up is the environment's
            # (a missing or wrong dependency), not the tests'.
            missing_import = _IMPORT_FAILURE.search(runs.last_log)
            record.status = "environment_failed" if missing_import else "tests_did_not_run"
            record.detail = (
                f"the tests cannot import: {missing_import.group(0)}\n" if missing_import else ""
            ) + runs.last_log[-4000:]
            return Validated(validation=record)
        first = compute_lists(before, after)
        candidates = [t for t in first.fail_to_pass if " " not in t]
        before_again = after_again = None
        if job.reruns and candidates:
            sessions = (in_session, after_session)
            before_again, after_again = _again(
                job, executor, runs, job_dir, candidates, (before, after), sessions
            )
        lists = compute_lists(before, after, before_again, after_again)
    record.flaky = lists.flaky
    record.tests = account(before, after, lists)
    record.status = "valid" if lists.fail_to_pass else "no_fail_to_pass"
    return Validated(
        fail_to_pass=lists.fail_to_pass, pass_to_pass=lists.pass_to_pass, validation=record
    )


def _setup(job: Job, job_dir: Path) -> SetupTree | None:
    """A worktree of the environment's own commit, opened only if the environment is built."""
    commit = job.setup_commit
    if not commit or commit == job.instance.get("base_commit"):
        return None
    return lambda: gitwork.worktree(job.git_dir, commit, job_dir)


def _again(
    job: Job,
    executor: Executor,
    runs: _Runs,
    job_dir: Path,
    candidates: list[str],
    first: tuple[dict[str, str], dict[str, str]],
    sessions: tuple[Path | None, Path | None],
) -> tuple[dict[str, str], dict[str, str]]:
    """Second outcomes of the candidates: from the runs' own sessions where the plugin reran
    them (no extra process), the rest from two more runs. A candidate whose in-session rerun
    disagrees with its first run is run again in new processes too, and that verdict stands:
    a test run twice in one session can see the state its first run left (a shared app
    fixture, a build folder), which says nothing about the test being flaky."""
    record = runs.record
    before, after = first
    found = [reruns.read_again(d) for d in sessions]
    again_before = found[0].outcomes if found[0] else {}
    again_after = found[1].outcomes if found[1] else {}
    record.durations["reruns"] = round(sum(f.seconds for f in found if f), 3)
    # A candidate absent before (its module did not import) has no before-outcome to repeat.
    missing = [
        t for t in candidates if t not in again_after or (t in before and t not in again_before)
    ]
    disagreeing = [
        t
        for t in candidates
        if t not in missing
        and (again_after[t] != after.get(t) or again_before.get(t, before.get(t)) != before.get(t))
    ]
    record.reruns = "new_processes" if missing else "in_session"
    missing += disagreeing
    if missing:
        t0 = time.monotonic()
        more_before, more_after = _rerun(job, executor, runs, job_dir, missing)
        record.durations["reruns"] += round(time.monotonic() - t0, 3)
        again_before = again_before | (more_before or {})
        again_after = again_after | (more_after or {})
    wanted = set(candidates)
    return (
        {t: s for t, s in again_before.items() if t in wanted},
        {t: s for t, s in again_after.items() if t in wanted},
    )


def _rerun(
    job: Job, executor: Executor, runs: _Runs, job_dir: Path, candidates: list[str]
) -> tuple[dict[str, str] | None, dict[str, str] | None]:
    """Both outcomes again, in two more runs at once, for tests the plugin did not rerun.

    The after-rerun goes on in the job's tree while a second worktree (base + test patch, its
    own venv: the editable install is replayed in ~0.1 s) takes the before-rerun.
    """
    inst = job.instance
    with ThreadPoolExecutor(max_workers=1) as pool:
        after_again = pool.submit(runs.go, "rerun_after", candidates)
        twin_dir = Path(tempfile.mkdtemp(dir=job_dir, prefix="twin-"))
        with gitwork.worktree(job.git_dir, str(inst["base_commit"]), twin_dir) as twin:
            gitwork.apply(twin, str(inst.get("test_patch") or ""))
            try:
                prepared = executor.prepare(
                    str(inst.get("repo")), job.version, job.recipe, twin, twin_dir
                )
            except (MissingPython, EnvBuildError):
                prepared = None  # the job's tree takes it, once the after-rerun is done
            if prepared is not None:
                before_again = runs.go("rerun_before", candidates, prepared, twin)
                return before_again, after_again.result()
    after = after_again.result()
    gitwork.apply(runs.tree, str(inst.get("patch") or ""), reverse=True)
    return runs.go("rerun_before", candidates), after


class _Runs:
    def __init__(
        self,
        executor: Executor,
        prepared: Prepared,
        tree: Path,
        timeout: float,
        record: Validation,
        logs_dir: Path | None = None,
    ) -> None:
        self.executor, self.prepared, self.tree = executor, prepared, tree
        self.timeout, self.record, self.last_log = timeout, record, ""
        self.logs_dir = logs_dir

    def go(
        self,
        name: str,
        args: list[str],
        prepared: Prepared | None = None,
        tree: Path | None = None,
        rerun_dir: Path | None = None,
    ) -> dict[str, str] | None:
        """Outcomes of one run; None (and a `timeout` status) when it ran out of time."""
        done: RunResult = self.executor.run(
            prepared or self.prepared, tree or self.tree, args, self.timeout, rerun_dir
        )
        self.record.durations[name] = done.seconds
        self.last_log = done.log
        if self.logs_dir is not None:
            self.logs_dir.mkdir(parents=True, exist_ok=True)
            with gzip.open(self.logs_dir / f"{name}.log.gz", "wt", encoding="utf-8") as fh:
                fh.write(done.log)
            self.record.logs = str(self.logs_dir)
        if done.timed_out:
            self.record.status = "timeout"
            self.record.detail = f"{name} run passed {self.timeout:.0f} s"
            return None
        if done.killed:
            self.record.status = "resource_limit"
            self.record.detail = f"{name} run stopped by the sandbox: {done.killed}"
            return None
        return parse_pytest_log(done.log)

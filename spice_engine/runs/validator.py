"""Validate one instance: apply checks, environment, the tests before and after the gold patch."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from spice_engine.langs import FALLBACK, languages
from spice_engine.langs.executor import Executor
from spice_engine.langs.prepared import Prepared
from spice_engine.langs.python_interpreters import MissingPython
from spice_engine.redaction import redacted_excerpt
from spice_engine.runs.session import (
    Job,
    Run,
    Session,
    Status,
    Stopped,
    check,
    open_session,
    stopped_by,
)
from spice_engine.validate import gitwork, reruns, submodules
from spice_engine.validate.executor import EnvBuildError
from spice_engine.validate.outcomes import (
    Accounting,
    Outcomes,
    TestStatus,
    account,
    compute_lists,
)
from spice_engine.validate.tree import Tree

__all__ = ["Job", "Validated", "Validation", "test_files", "validate"]
Progress = Callable[[str], None]
"""Told each phase as it starts: minutes pass in each."""
_IMPORT_FAILURE = re.compile(r"(?:ModuleNotFoundError|ImportError): [^\n]+")


class Validation(BaseModel):
    """What `spice.validation` records for an instance."""

    status: Status
    detail: str = ""
    language: str = FALLBACK
    toolchain: str | None = None
    """The toolchain the environment was built with (`go1.26.8`, `python3.9`)."""
    test_command: list[str] | None = None
    """The test command for the test files, as run in its sandbox."""
    plan: dict[str, object] | None = None
    """The environment as values (spice_engine.langs.base.Plan: toolchain, install, key,
    settings): what rebuilds it without reading the tree again."""
    python: str | None = None
    recipe: dict[str, object] | None = None
    environment: str | None = None
    environment_built: bool = False
    durations: dict[str, float] = Field(default_factory=dict)
    flaky: list[str] = Field(default_factory=list)
    reruns: Literal["in_session", "new_processes", "off"] = "off"
    """How the fail-to-pass tests were run a second time (to tell flaky ones)."""
    not_rerun: list[str] = Field(default_factory=list)
    """Fail-to-pass tests no second run ran (a crash, a timeout, a runner that could not
    name them): whether they are flaky is unknown."""
    test_files: list[str] = Field(default_factory=list)
    tests: Accounting | None = None
    """Where every test seen in the logs went (counts, and the tests in neither list)."""
    logs: str | None = None
    """Directory holding this instance's run logs (`before.log.gz`, `after.log.gz`, ...)."""


class Validated(BaseModel):
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    validation: Validation


def test_files(test_patch: str) -> list[str]:
    """The files the test patch leaves in place (SWE-bench runs the files it touches); the
    language picks its targets among them (spice_engine.langs.base.Language.test_command)."""
    from unidiff import PatchSet

    return [f.path for f in PatchSet(test_patch) if not f.is_removed_file]


def validate(
    job: Job, executor: Executor, scratch: Path, progress: Progress | None = None
) -> Validated:
    """Never raises for a problem of the instance or its environment: that is a status.
    `progress` is told each phase as it starts (`environment`, `before`, `after`, `reruns`)."""
    started = time.monotonic()
    said = progress or (lambda phase: None)
    record = Validation(status=Status.ERROR, language=job.language)
    if job.recipe is not None:
        record.python = job.recipe.python
        record.recipe = {**job.recipe.model_dump(), "install_cmds": job.recipe.install_cmds()}
    try:
        t0 = time.monotonic()
        for name, patches in (
            ("test_patch", [job.test_patch]),
            ("patch", [job.patch]),
            ("both", [job.test_patch, job.patch]),
        ):
            try:
                check(job, patches)
            except Stopped as exc:
                if exc.status == Status.PATCH_DOES_NOT_APPLY:
                    exc.detail = f"{name} does not apply at base_commit: {exc.detail}"
                raise
        record.durations["apply_check"] = round(time.monotonic() - t0, 3)
        record.test_files = languages()[job.language].targets(test_files(job.test_patch), [])
        said("environment")
        with open_session(job, executor, scratch) as session:
            try:
                done = _before_and_after(session, record, said)
            finally:
                record.durations |= session.durations
                record.logs = str(job.logs_dir) if job.logs_dir is not None else None
        if record.status != Status.VALID:
            record.detail = _with_submodules(job, record.status, record.detail)
        return done
    except Exception as exc:
        if (stop := stopped_by(exc)) is None:
            raise
        record.status, record.detail = stop.status, _with_submodules(job, stop.status, stop.detail)
        return Validated(validation=record)
    finally:
        record.durations["total"] = round(time.monotonic() - started, 3)


def _with_submodules(job: Job, status: Status, detail: str) -> str:
    """A failure's detail, first naming each submodule of the commit no repository the run
    was given holds (`missing_submodule: <path> (<url>)`): a build may need them (astropy's
    `astropy_helpers`, jq's `modules/oniguruma`)."""
    if status in (Status.PATCH_DOES_NOT_APPLY, Status.MISSING_COMMIT):
        return detail
    try:
        lines = submodules.missing(
            job.git_dir,
            job.setup_commit or job.base,
            str(job.instance.get("repo") or ""),
            job.submodules,
        )
    except gitwork.GitError:
        return detail
    return "\n".join([*lines, detail]).strip() if lines else detail


def run_targets(job: Job) -> list[str]:
    """What a run is given: the test files the language runs; a language that runs a
    package's or module's tests together (a compiled one) also gets the fix's files, whose own
    tests are the fix's first tests."""
    return languages()[job.language].targets(test_files(job.test_patch), test_files(job.patch))


def _ended(run: Run, name: str, timeout_s: float) -> Outcomes:
    """The run's outcomes, or Stopped when the sandbox cut it short."""
    if run.timed_out:
        raise Stopped(Status.TIMEOUT, f"{name} run passed {timeout_s:.0f} s")
    if run.killed:
        raise Stopped(Status.RESOURCE_LIMIT, f"{name} run stopped by the sandbox: {run.killed}")
    return run.outcomes


def _before_and_after(session: Session, record: Validation, said: Progress) -> Validated:
    job = session.job
    record.environment = session.prepared.key if session.prepared else None
    record.environment_built = bool(session.prepared and session.prepared.built)
    files, budget = run_targets(job), job.timeout_s * job.rerun_share
    if session.prepared:
        plan = session.prepared.plan
        record.toolchain = plan.toolchain.name
        record.plan = plan.model_dump(mode="json")
        session.tree.apply(job.test_patch)
        phase = session.language.test_command(session.tree, files, plan)
        session.tree.apply(job.test_patch, reverse=True)
        record.test_command = [*(f"{k}={v}" for k, v in sorted(phase.env.items())), *phase.argv]
    source, name = reruns.PLUGIN_SOURCE, reruns.RERUN_PLUGIN
    in_session = job.reruns and session.takes_plugins  # a pytest plugin reruns them
    session.tree.apply(job.test_patch)
    first = session.plugin(source, name, reruns.settings(budget)) if in_session else None
    said("before")
    run_before = session.run("before", files, job.timeout_s, first)
    before = _ended(run_before, "before", job.timeout_s)
    session.tree.apply(job.patch)
    passed = [t for t, s in before.items() if s == TestStatus.PASSED]
    second = session.plugin(source, name, reruns.settings(budget, passed)) if in_session else None
    said("after")
    run_after = session.run("after", files, job.timeout_s, second)
    after = _ended(run_after, "after", job.timeout_s)
    if not before and not after:
        # Nothing collected either way: an import failing at start-up is the environment's
        # (a missing or wrong dependency), not the tests'.
        missing_import = _IMPORT_FAILURE.search(session.last_log)
        status = Status.ENVIRONMENT_FAILED if missing_import else Status.TESTS_DID_NOT_RUN
        why = f"the tests cannot import: {missing_import.group(0)}\n" if missing_import else ""
        raise Stopped(status, why + redacted_excerpt(session.last_log, tail=4000))
    lists = compute_lists(before, after)
    candidates = lists.fail_to_pass
    if job.reruns and candidates:
        said("reruns")
        again = _again(session, record, candidates, (before, after), (run_before, run_after))
        lists = compute_lists(before, after, *again)
    record.flaky = lists.flaky
    record.tests = account(before, after, lists)
    record.status = Status.VALID if lists.fail_to_pass else Status.NO_FAIL_TO_PASS
    return Validated(
        fail_to_pass=lists.fail_to_pass, pass_to_pass=lists.pass_to_pass, validation=record
    )


def _again(
    session: Session,
    record: Validation,
    candidates: list[str],
    first: tuple[Outcomes, Outcomes],
    runs: tuple[Run, Run],
) -> tuple[Outcomes, Outcomes]:
    """Second outcomes of the candidates: from the runs' own sessions where the plugin reran
    them (no extra process), the rest from two more runs. A candidate whose in-session rerun
    disagrees with its first run is run again in new processes too, and that verdict stands:
    a test run twice in one session can see the state its first run left (a shared app
    fixture, a build folder), which says nothing about the test being flaky."""
    before, after = first
    found = [reruns.read_again(r.messages) for r in runs]
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
        more_before, more_after = _rerun(session, missing)
        record.durations["reruns"] += round(time.monotonic() - t0, 3)
        again_before = again_before | more_before
        again_after = again_after | more_after
    wanted = set(candidates)
    record.not_rerun = [
        t for t in candidates if t not in again_after or (t in before and t not in again_before)
    ]
    return (
        {t: s for t, s in again_before.items() if t in wanted},
        {t: s for t, s in again_after.items() if t in wanted},
    )


def _rerun(session: Session, candidates: list[str]) -> tuple[Outcomes, Outcomes]:
    """Both outcomes again, in two more runs at once, for tests the plugin did not rerun.

    The after-rerun goes on in the session's tree while a second tree (base + test patch, its
    own venv: the editable install is replayed in ~0.1 s) takes the before-rerun. Each runs
    their files with exactly the candidates chosen inside pytest: an id cut at a space (as
    SWE-bench lists it) or one with an escape names no test on a command line.
    """
    job, timeout = session.job, session.job.timeout_s
    python = session.takes_plugins
    # Other runners run the test patch's files again whole: they take no ids.
    files = reruns.files_of(candidates) if python else run_targets(job)

    def again(name: str, tree: Tree | None = None, prepared: Prepared | None = None) -> Outcomes:
        plugin = (
            session.plugin(reruns.PLUGIN_SOURCE, reruns.RERUN_PLUGIN, reruns.only(candidates))
            if python
            else None
        )
        return _ended(session.run(name, files, timeout, plugin, tree, prepared), name, timeout)

    with ThreadPoolExecutor(max_workers=1) as pool:
        after_again = pool.submit(again, "rerun_after")
        try:
            with session.twin() as (twin, prepared):
                twin.apply(job.test_patch)
                return again("rerun_before", twin, prepared), after_again.result()
        except (MissingPython, EnvBuildError):
            pass  # no second environment here: the session's tree takes it, below
    after = after_again.result()
    session.tree.apply(job.patch, reverse=True)
    return again("rerun_before"), after

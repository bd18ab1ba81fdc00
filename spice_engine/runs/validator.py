"""Validate one instance: apply checks, environment, the tests before and after the gold patch."""

from __future__ import annotations

import re
import time
from pathlib import Path

from spice_engine.langs import languages
from spice_engine.langs.capabilities import failure_texts, side_by_side
from spice_engine.langs.executor import Executor
from spice_engine.redaction import redacted_excerpt
from spice_engine.runs.second_runs import second_outcomes
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
from spice_engine.runs.side_by_side import before_and_after as at_once
from spice_engine.runs.validator_support import (
    Progress,
    Validated,
    Validation,
    ended,
    left_out_line,
    run_targets,
    test_files,
)
from spice_engine.validate import gitwork, reruns, submodules
from spice_engine.validate.offline import needing_network, offline_line
from spice_engine.validate.outcomes import (
    TestStatus,
    account,
    compute_lists,
)

__all__ = ["Job", "Validated", "Validation", "run_targets", "test_files", "validate"]
_IMPORT_FAILURE = re.compile(r"(?:ModuleNotFoundError|ImportError): [^\n]+")


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
        record.detail = _with_left_out(record, record.detail)
        return done
    except Exception as exc:
        if (stop := stopped_by(exc)) is None:
            raise
        detail = _with_submodules(job, stop.status, stop.detail)
        record.status, record.detail = stop.status, _with_left_out(record, detail)
        return Validated(validation=record)
    finally:
        record.durations["total"] = round(time.monotonic() - started, 3)


def _offline(session: Session, runs: tuple[Run, Run]) -> set[str]:
    """The tests whose failure in either run showed a network attempt."""
    plan = session.prepared.plan if session.prepared else None
    found: set[str] = set()
    for run in runs:
        found |= needing_network(failure_texts(session.language, run.channel, run.log, plan))
    return found


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


def _with_left_out(record: Validation, detail: str) -> str:
    """`detail` after the line naming what the environment left out, if it left out any."""
    return "\n".join(line for line in (left_out_line(record.left_out), detail) if line)


def _before_and_after(session: Session, record: Validation, said: Progress) -> Validated:
    job = session.job
    record.environment = session.prepared.key if session.prepared else None
    record.environment_built = bool(session.prepared and session.prepared.built)
    files, budget = run_targets(job), job.timeout_s * job.rerun_share
    if session.prepared:
        plan = session.prepared.plan
        record.toolchain = plan.toolchain.name
        record.plan = plan.model_dump(mode="json")
        record.left_out = dict(plan.left_out)
        session.tree.apply(job.test_patch)
        phase = session.language.test_command(session.tree, files, plan)
        session.tree.apply(job.test_patch, reverse=True)
        record.test_command = [*(f"{k}={v}" for k, v in sorted(phase.env.items())), *phase.argv]
    source, name = reruns.PLUGIN_SOURCE, reruns.RERUN_PLUGIN
    in_session = job.reruns and session.takes_plugins  # a pytest plugin reruns them
    session.tree.apply(job.test_patch)
    both = None
    if not in_session and side_by_side(session.language):
        said("before")
        said("after")
        both = at_once(session, files)
    if both is not None:
        run_before, run_after = both
        before = ended(run_before, "before", job.timeout_s)
    else:
        first = session.plugin(source, name, reruns.settings(budget)) if in_session else None
        said("before")
        run_before = session.run("before", files, job.timeout_s, first)
        before = ended(run_before, "before", job.timeout_s)
        session.tree.apply(job.patch)
        passed = [t for t, s in before.items() if s == TestStatus.PASSED]
        second = (
            session.plugin(source, name, reruns.settings(budget, passed)) if in_session else None
        )
        said("after")
        run_after = session.run("after", files, job.timeout_s, second)
    after = ended(run_after, "after", job.timeout_s)
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
        again = second_outcomes(
            session, record, candidates, (before, after), (run_before, run_after)
        )
        lists = compute_lists(before, after, *again)
    record.flaky = lists.flaky
    record.tests = account(before, after, lists, _offline(session, (run_before, run_after)))
    record.status = Status.VALID if lists.fail_to_pass else Status.NO_FAIL_TO_PASS
    if record.tests.needs_network:
        record.detail = offline_line(len(record.tests.needs_network))
    return Validated(
        fail_to_pass=lists.fail_to_pass, pass_to_pass=lists.pass_to_pass, validation=record
    )

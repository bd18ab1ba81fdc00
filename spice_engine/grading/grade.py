"""Grade one prediction: the test patch and the model's patch applied at the instance's base,
the tests its validation ran run once in the same sandbox and environment, and SWE-bench's
verdict on the FAIL_TO_PASS and PASS_TO_PASS lists.

The model's patch is applied as git applies it, without fuzz (SWE-bench's harness falls back
to `patch --fuzz=5`): a patch that applies only with fuzz is not applied here.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel

from spice_engine.grading.predictions import Prediction
from spice_engine.grading.reports import InstanceReport, resolved, verdicts
from spice_engine.langs.executor import Executor
from spice_engine.runs.session import Job, check, open_session, stopped_by
from spice_engine.runs.validator import run_targets
from spice_engine.validate import gitwork
from spice_engine.validate.tree import PatchRefused


class Graded(BaseModel):
    """A verdict (`report`), or why the instance could not be graded (`error`)."""

    report: InstanceReport | None = None
    error: str = ""
    detail: str = ""
    """Why the patch did not apply, when it did not."""
    log: str = ""
    """The test run's output (what SWE-bench keeps as `test_output.txt`)."""
    ran: bool = False
    """The tests ran (their output may be empty: a build that failed said so elsewhere)."""
    seconds: float = 0.0


def grade(
    job: Job,
    executor: Executor,
    scratch: Path,
    prediction: Prediction,
    lists: tuple[list[str], list[str]],
) -> Graded:
    """Never raises for a problem of the instance, its environment or the patch."""
    if prediction.model_patch is None:
        return Graded(report=InstanceReport(patch_is_None=True))
    patch, started = prediction.model_patch, time.monotonic()
    not_applied = InstanceReport(patch_exists=True)
    try:
        check(job, [job.test_patch])  # a test patch that does not apply is the instance's fault
        if problem := gitwork.apply_problem(job.git_dir, job.base, [job.test_patch, patch]):
            return Graded(report=not_applied, detail=problem.strip())
        with open_session(job, executor, scratch) as session:
            session.tree.apply(job.test_patch)
            try:
                session.tree.apply(patch)
            except PatchRefused as exc:  # a link or a `.git` path: never written by the host
                return Graded(report=not_applied, detail=str(exc))
            run = session.run("eval", run_targets(job), job.timeout_s)
    except Exception as exc:
        if (stop := stopped_by(exc)) is None:
            raise
        return Graded(error=f"{stop.status.value}: {stop.detail}", seconds=_since(started))
    if run.killed:
        return Graded(error=f"the run was stopped: {run.killed}", log=run.log, seconds=run.seconds)
    status = verdicts(*lists, run.outcomes)
    report = InstanceReport(
        patch_exists=True,
        patch_successfully_applied=True,
        resolved=resolved(status),
        tests_status=status,
    )
    return Graded(report=report, log=run.log, ran=True, seconds=_since(started))


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)

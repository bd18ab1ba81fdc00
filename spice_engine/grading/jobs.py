"""Dataset rows -> the jobs their grading runs, in the environments their validation used.

Rows are planned as validation plans them (spice_engine.runs.planner); a row `spice validate`
passed keeps the recipe, version and setup commit it recorded, so its environment is the one
its lists were computed in (an export may outlive a change of the planner's inference).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spice_engine.langs.python_recipe import Recipe
from spice_engine.runs.planner import Unplanned, plan_jobs
from spice_engine.runs.session import Job, Status


def jobs_for(
    rows: list[dict[str, Any]], git_dirs: dict[str, Path], timeout_s: float
) -> dict[str, Job | str]:
    """Instance id -> its job (or why there is none)."""
    planned = plan_jobs(rows, git_dirs, timeout_s, reruns=0)
    jobs: dict[str, Job | str] = {}
    for row in rows:
        iid = str(row["instance_id"])
        job = planned[iid]
        if isinstance(job, Unplanned):
            jobs[iid] = job.detail if job.status == Status.ERROR else f"{job.status}: {job.detail}"
            continue
        record = _recorded(row)
        if record is not None and record.get("recipe"):
            job = job.model_copy(
                update={
                    "recipe": Recipe.model_validate(record["recipe"]),
                    "version": str(row.get("version") or ""),
                    "setup_commit": str(row.get("environment_setup_commit") or "") or None,
                }
            )
        jobs[iid] = job
    return jobs


def _recorded(row: dict[str, Any]) -> dict[str, Any] | None:
    """The validation record of a row `spice validate` passed, if it carries one."""
    record = (row.get("spice") or {}).get("validation")
    if isinstance(record, dict) and record.get("status") == "valid":
        return record
    return None

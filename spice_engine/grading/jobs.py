"""Dataset rows -> the jobs their grading runs, in the environments their validation used.

SWAP POINT for the validation planner's refactor: `jobs_for` is the one place here that turns
rows into jobs, mirroring what `spice_engine/validate/batch.py:validate_rows` does today
(`row_languages`, `plan_groups`, `_job`). When the new planner lands, replace its body with
the planner's call; nothing else in grading plans.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spice_engine.langs.executors import Executors, row_languages
from spice_engine.validate.plan import plan_groups
from spice_engine.validate.pythons import find_pythons
from spice_engine.validate.recipe import Recipe
from spice_engine.validate.session import Job


def jobs_for(
    rows: list[dict[str, Any]], git_dirs: dict[str, Path], executors: Executors, timeout_s: float
) -> dict[str, Job | str]:
    """Instance id -> its job (or why there is none). A row `spice validate` wrote carries
    its language, recipe, version and setup commit: the job reuses them, so the environment
    is the one its lists were computed in. Other rows are planned as validation plans them."""
    jobs: dict[str, Job | str] = {}
    unrecorded = [r for r in rows if not _recorded(r)]
    spoken = row_languages(unrecorded, git_dirs, executors)
    python = [r for r in unrecorded if spoken.get(str(r["instance_id"]), "python") == "python"]
    groups = plan_groups(python, git_dirs, sorted(find_pythons()))
    for row in rows:
        iid, repo = str(row["instance_id"]), str(row["repo"])
        if repo not in git_dirs:
            jobs[iid] = f"no repository given for {repo!r} (--repo)"
            continue
        job = Job(instance=row, git_dir=git_dirs[repo], version="", recipe=Recipe(python="3"))
        job.timeout_s, job.reruns = timeout_s, 0
        if (record := _recorded(row)) is not None:
            job.language = str(record.get("language") or "python")
            if job.language == "python":
                job.recipe = Recipe.model_validate(record.get("recipe") or {"python": "3"})
                job.version = str(row.get("version") or "")
                job.setup_commit = str(row.get("environment_setup_commit") or "") or None
        elif (language := spoken.get(iid, "python")) != "python":
            job.language = language
        elif (group := groups.get(iid)) is not None and group.recipe is not None:
            job.version, job.recipe = group.version, group.recipe
            job.setup_commit = group.setup_commit or None
        elif group is not None:
            jobs[iid] = f"missing_python: {group.error}"
            continue
        job.submodules = git_dirs
        jobs[iid] = job
    return jobs


def _recorded(row: dict[str, Any]) -> dict[str, Any] | None:
    """The validation record of a row `spice validate` passed, if it carries one."""
    record = (row.get("spice") or {}).get("validation")
    if isinstance(record, dict) and record.get("status") == "valid":
        return record
    return None

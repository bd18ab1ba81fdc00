"""The one planner: rows to jobs, or the typed reason a row gets none. `spice validate`,
`spice test-strength`, the App's pull-request execution and its harvest validation task all
plan here, so a row goes to the same language and environment whoever runs it.

Each row's language is read off its base commit (spice_engine.langs). Python rows are grouped
by version as SWE-bench does, each group's recipe worked out once from its newest base commit
(spice_engine.langs.python_versions); the other languages plan their environments from the tree.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from spice_engine.langs import FALLBACK, language_of, languages
from spice_engine.langs.capabilities import version_groups
from spice_engine.langs.commit_files import CommitFiles
from spice_engine.langs.python_versions import Group
from spice_engine.runs.session import Job, Status
from spice_engine.validate.gitwork import GitError


class Unplanned(BaseModel):
    """Why a row gets no job; the instance ends with `status`."""

    model_config = ConfigDict(frozen=True)

    status: Status
    detail: str


def language_at(git_dir: Path, commit: str) -> str:
    """The language of the project at `commit` (the fallback's when the commit cannot be read:
    its session then says what is wrong with it)."""
    try:
        return language_of(CommitFiles(git_dir, commit)).name
    except GitError:
        return FALLBACK


def plan_jobs(
    rows: Iterable[dict[str, Any]],
    git_dirs: dict[str, Path],
    timeout_s: float = 1800.0,
    reruns: int = 1,
    logs_dir: Path | None = None,
) -> dict[str, Job | Unplanned]:
    """instance_id -> its job (or why none), for every row. With `logs_dir`, each job keeps its
    run logs in a folder of it named for the instance."""
    given = list(rows)
    spoken = {
        str(r.get("instance_id")): language_at(git_dirs[str(r["repo"])], str(r.get("base_commit")))
        for r in given
        if str(r.get("repo")) in git_dirs
    }
    groups: dict[str, Group] = {}
    for name, language in languages().items():
        grouped = version_groups(language)
        mine = [r for r in given if spoken.get(str(r.get("instance_id"))) == name]
        if grouped is not None and mine:
            groups |= grouped.version_groups(mine, git_dirs)
    planned: dict[str, Job | Unplanned] = {}
    for row in given:
        iid = str(row.get("instance_id"))
        if iid not in spoken:
            why = f"no repository given for {row.get('repo')!r} (--repo)"
            planned[iid] = Unplanned(status=Status.ERROR, detail=why)
            continue
        group = groups.get(iid)
        if group is not None and group.recipe is None:
            planned[iid] = Unplanned(status=Status.MISSING_PYTHON, detail=group.error)
            continue
        planned[iid] = Job(
            instance=row,
            git_dir=git_dirs[str(row["repo"])],
            language=spoken[iid],
            # A Python row whose base commit is not there has no group: its checks say so.
            version=group.version if group else "",
            recipe=group.recipe if group else None,
            setup_commit=(group.setup_commit or None) if group else None,
            timeout_s=timeout_s,
            reruns=reruns,
            logs_dir=None if logs_dir is None else logs_dir / folder_name(iid),
            submodules=git_dirs,
        )
    return planned


def folder_name(iid: str) -> str:
    """An instance id as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", iid)

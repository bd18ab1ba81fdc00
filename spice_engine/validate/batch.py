"""Validate many instances: plan their groups, run jobs on N workers, fill in the fields."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from spice_engine.langs.executors import Executors, row_languages
from spice_engine.validate.executor import Executor
from spice_engine.validate.harness_fields import harness_fields
from spice_engine.validate.plan import plan_groups
from spice_engine.validate.pythons import find_pythons
from spice_engine.validate.validator import Job, Validated, Validation, validate

COMPUTED = (
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "version",
    "environment_setup_commit",
    "image",
    "eval_script",
    "log_parser",
    "eval_type",
)


def validate_rows(
    rows: list[dict[str, Any]],
    git_dirs: dict[str, Path],
    executor: Executor | Executors,
    scratch: Path,
    workers: int = 1,
    timeout_s: float = 1800.0,
    reruns: int = 1,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    logs_dir: Path | None = None,
) -> list[dict[str, Any]]:
    """Each row with the four computed fields and `spice.validation`, in input order; with
    `logs_dir`, each instance's run logs kept in a folder of it named for the instance. With
    `Executors`, each row's language (read off its base commit) picks its executor; a bare
    `Executor` runs Python only."""
    spoken = row_languages(rows, git_dirs, executor)
    python_rows = [r for r in rows if spoken.get(str(r.get("instance_id")), "python") == "python"]
    groups = plan_groups(python_rows, git_dirs, sorted(find_pythons()))

    def one(row: dict[str, Any]) -> dict[str, Any]:
        iid = str(row.get("instance_id"))
        group = groups.get(iid)
        language = spoken.get(iid, "python")
        if str(row.get("repo")) not in git_dirs:
            result = _failed("error", f"no repository given for {row.get('repo')!r} (--repo)")
        elif language != "python":
            assert isinstance(executor, Executors)
            job = _job(row, git_dirs, "", None, timeout_s, reruns)
            job.language = language
            job.logs_dir = _logs(logs_dir, iid)
            result = validate(job, executor.of(language), scratch)
            group = None
        elif group is None:
            result = validate(
                _job(row, git_dirs, "0.0", None, timeout_s, reruns), _python(executor), scratch
            )
        elif group.recipe is None:
            result = _failed("missing_python", group.error)
        else:
            job = _job(row, git_dirs, group.version, group.recipe, timeout_s, reruns)
            job.setup_commit = group.setup_commit or None
            job.logs_dir = _logs(logs_dir, iid)
            result = validate(job, _python(executor), scratch)
        out = merge(
            row, result, group.version if group else "", group.setup_commit if group else ""
        )
        if on_done:
            on_done(out)
        return out

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, rows))


def _python(executor: Executor | Executors) -> Executor:
    return executor.of("python") if isinstance(executor, Executors) else executor


def _logs(logs_dir: Path | None, iid: str) -> Path | None:
    return None if logs_dir is None else logs_dir / re.sub(r"[^A-Za-z0-9_.-]+", "_", iid)


def _job(
    row: dict[str, Any],
    git_dirs: dict[str, Path],
    version: str,
    recipe: Any,
    timeout_s: float,
    reruns: int,
) -> Job:
    from spice_engine.validate.recipe import Recipe

    return Job(
        instance=row,
        git_dir=git_dirs[str(row["repo"])],
        version=version,
        recipe=recipe or Recipe(python="3"),
        timeout_s=timeout_s,
        reruns=reruns,
        submodules=git_dirs,
    )


def _failed(status: Any, detail: str) -> Validated:
    return Validated(validation=Validation(status=status, detail=detail))


def merge(
    row: dict[str, Any], result: Validated, version: str, setup_commit: str
) -> dict[str, Any]:
    """The input row with the computed fields (never the input's own) and `spice.validation`."""
    out = {k: v for k, v in row.items() if k not in COMPUTED}
    out["version"] = version
    out["environment_setup_commit"] = setup_commit
    out["FAIL_TO_PASS"] = json.dumps(result.fail_to_pass)
    out["PASS_TO_PASS"] = json.dumps(result.pass_to_pass)
    spice = dict(row.get("spice") or {})
    spice["validation"] = result.validation.model_dump(mode="json")
    out["spice"] = spice
    if result.validation.status == "valid":
        out |= harness_fields(row, spice["validation"], version)  # what SWE-bench 5 grades with
    return out

"""Validate many instances: plan their groups, run jobs on N workers, fill in the fields."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from spice_engine.langs.executor import Executor
from spice_engine.runs.harness_fields import harness_fields
from spice_engine.runs.planner import Unplanned, plan_jobs
from spice_engine.runs.validator import Validated, Validation, validate

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
    executor: Executor,
    scratch: Path,
    workers: int = 1,
    timeout_s: float = 1800.0,
    reruns: int = 1,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    logs_dir: Path | None = None,
    on_phase: Callable[[str, str], None] | None = None,
) -> list[dict[str, Any]]:
    """Each row with the four computed fields and `spice.validation`, in input order, each in
    the language of its base commit (spice_engine.runs.planner); with `logs_dir`, each
    instance's run logs kept in a folder of it named for the instance; `on_phase` is told
    (instance id, phase) as each phase starts."""
    planned = plan_jobs(rows, git_dirs, timeout_s, reruns, logs_dir)

    def one(row: dict[str, Any]) -> dict[str, Any]:
        iid = str(row.get("instance_id"))
        job = planned[iid]
        said = (lambda phase: on_phase(iid, phase)) if on_phase else None
        if isinstance(job, Unplanned):
            out = merge(row, _failed(job.status, job.detail), "", "")
        else:
            validated = validate(job, executor, scratch, said)
            out = merge(row, validated, job.version, job.setup_commit or "")
        if on_done:
            on_done(out)
        return out

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, rows))


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

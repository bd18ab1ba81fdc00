"""Measure many instances: their environments planned as validation plans them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from spice_engine.langs.executor import Executor
from spice_engine.runs.planner import Unplanned, plan_jobs
from spice_engine.runs.session import Status
from spice_engine.strength.catching import TestWriter
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength


def run_seconds(durations: Mapping[str, float]) -> float:
    """A validation's test runs: its total less its environment (what a measurement's budget
    is a multiple of)."""
    return max(0.0, float(durations["total"]) - float(durations.get("environment", 0.0)))


def validation_seconds(row: dict[str, Any]) -> float | None:
    """The row's own validation's test runs, when it has one that ran."""
    validation = (row.get("spice") or {}).get("validation") or {}
    durations = validation.get("durations") or {}
    if validation.get("status") != "valid" or "total" not in durations:
        return None
    return run_seconds(durations)


def unreadable_validation(row: dict[str, Any]) -> str | None:
    """Why the row's own validation cannot judge mutants (None: it can, or the row has none and
    its lists are taken as given): one that could not read the runner's output, or did not
    finish, leaves lists no mutant's run can be held to."""
    validation = (row.get("spice") or {}).get("validation") or {}
    status = validation.get("status")
    if status is None or status == Status.VALID:
        return None
    first = next(iter(str(validation.get("detail") or "").strip().splitlines()), "")
    return f"validation: {status}" + (f": {first[:300]}" if first else "")


def strength_rows(
    rows: list[dict[str, Any]],
    git_dirs: dict[str, Path],
    executor: Executor,
    scratch: Path,
    config: StrengthConfig,
    workers: int = 1,
    timeout_s: float = 900.0,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    on_phase: Callable[[str, str], None] | None = None,
    writer: TestWriter | None = None,
    logs_dir: Path | None = None,
) -> list[dict[str, Any]]:
    """Each row with `spice.test_strength`, in input order, each in the language of its base
    commit (spice_engine.runs.planner); with `logs_dir`, every run's log kept there, a folder
    per instance."""
    planned = plan_jobs(rows, git_dirs, timeout_s, logs_dir=logs_dir)

    def one(row: dict[str, Any]) -> dict[str, Any]:
        iid = str(row.get("instance_id"))
        job = planned[iid]
        if isinstance(job, Unplanned):
            result = TestStrength(status=job.status, detail=job.detail)
        elif (why := unreadable_validation(row)) is not None:
            none = why.startswith(f"validation: {Status.NO_FAIL_TO_PASS}")
            result = TestStrength(
                status=Status.NO_FAIL_TO_PASS if none else Status.ERROR, detail=why
            )
        else:
            said = (lambda phase: on_phase(iid, phase)) if on_phase else None
            timed = config.model_copy(update={"validation_s": validation_seconds(row)})
            result = measure(job, executor, scratch, timed, said, writer)
        out = dict(row)
        out["spice"] = dict(row.get("spice") or {}) | {
            "test_strength": result.model_dump(mode="json")
        }
        if on_done:
            on_done(out)
        return out

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, rows))

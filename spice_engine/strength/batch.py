"""Measure many instances: their environments planned as validation plans them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from spice_engine.langs.executor import Executor
from spice_engine.runs.planner import Unplanned, plan_jobs
from spice_engine.strength.catching import TestWriter
from spice_engine.strength.measure import measure
from spice_engine.strength.result import StrengthConfig, TestStrength


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
) -> list[dict[str, Any]]:
    """Each row with `spice.test_strength`, in input order, each in the language of its base
    commit (spice_engine.runs.planner)."""
    planned = plan_jobs(rows, git_dirs, timeout_s)

    def one(row: dict[str, Any]) -> dict[str, Any]:
        iid = str(row.get("instance_id"))
        job = planned[iid]
        if isinstance(job, Unplanned):
            result = TestStrength(status=job.status, detail=job.detail)
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

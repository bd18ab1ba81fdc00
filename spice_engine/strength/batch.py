"""Measure many instances: their environments planned as validation plans them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from spice_engine.langs.executors import Executors, row_languages
from spice_engine.strength.catching import TestWriter
from spice_engine.strength.measure import measure
from spice_engine.strength.result import StrengthConfig, TestStrength
from spice_engine.validate.executor import Executor
from spice_engine.validate.plan import plan_groups
from spice_engine.validate.pythons import find_pythons
from spice_engine.validate.recipe import Recipe
from spice_engine.validate.validator import Job


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
    executor: Executor | Executors,
    scratch: Path,
    config: StrengthConfig,
    workers: int = 1,
    timeout_s: float = 900.0,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    on_phase: Callable[[str, str], None] | None = None,
    writer: TestWriter | None = None,
) -> list[dict[str, Any]]:
    """Each row with `spice.test_strength`, in input order (with `Executors`, each in the
    language of its base commit)."""
    spoken = row_languages(rows, git_dirs, executor)
    python_rows = [r for r in rows if spoken.get(str(r.get("instance_id")), "python") == "python"]
    groups = plan_groups(python_rows, git_dirs, sorted(find_pythons()))

    def one(row: dict[str, Any]) -> dict[str, Any]:
        group = groups.get(str(row.get("instance_id")))
        language = spoken.get(str(row.get("instance_id")), "python")
        if str(row.get("repo")) not in git_dirs:
            why = f"no repository given for {row.get('repo')!r} (--repo)"
            result = TestStrength(status="error", detail=why)
        elif group is not None and group.recipe is None:
            result = TestStrength(status="missing_python", detail=group.error)
        else:
            job = Job(
                instance=row,
                git_dir=git_dirs[str(row["repo"])],
                version=group.version if group else "0.0",
                recipe=group.recipe if group and group.recipe else Recipe(python="3"),
                timeout_s=timeout_s,
                setup_commit=(group.setup_commit or None) if group else None,
                language=language,
            )
            chosen = executor.of(language) if isinstance(executor, Executors) else executor
            iid = str(row.get("instance_id"))
            said = (lambda phase: on_phase(iid, phase)) if on_phase else None
            timed = config.model_copy(update={"validation_s": validation_seconds(row)})
            result = measure(job, chosen, scratch, timed, said, writer)
        out = dict(row)
        out["spice"] = dict(row.get("spice") or {}) | {
            "test_strength": result.model_dump(mode="json")
        }
        if on_done:
            on_done(out)
        return out

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, rows))

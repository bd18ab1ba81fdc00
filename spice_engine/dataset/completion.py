"""A validated row made loadable by others: `version` and `environment_setup_commit` for every
language, its `environment_recipe`, and each test's status in both runs (`test_runs`, what
Multi-SWE-bench's record splits its tests by)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spice_engine.dataset.environment_recipe import RecipeMissing, recipe_of, toolchain_line
from spice_engine.dataset.runs import LogsMissing, grouped, read_runs

RECIPE_FIELD = "environment_recipe"
"""The row's recipe, JSON-encoded like FAIL_TO_PASS (one column type in every row)."""


def complete(row: dict[str, Any], envs_dir: Path) -> dict[str, Any]:
    """The row with those fields when it is valid (as given otherwise). Outside Python the
    environment is built per instance from its base commit with both patches applied, so the
    setup commit is the base commit and the version the toolchain's release line."""
    validation = dict((row.get("spice") or {}).get("validation") or {})
    if validation.get("status") != "valid":
        return row
    out = dict(row)
    if not validation.get("recipe"):  # planned from the tree, per instance
        out["version"] = out.get("version") or toolchain_line(str(validation.get("toolchain")))
        out["environment_setup_commit"] = out.get("environment_setup_commit") or str(
            out.get("base_commit") or ""
        )
    try:
        out[RECIPE_FIELD] = recipe_of(out, envs_dir).model_dump_json()
    except RecipeMissing as exc:
        validation["recipe_missing"] = str(exc)
    try:
        runs = read_runs(validation)
        validation["test_runs"] = {"before": grouped(runs.before), "after": grouped(runs.after)}
    except LogsMissing as exc:
        validation["test_runs_missing"] = str(exc)
    out["spice"] = dict(out.get("spice") or {}) | {"validation": validation}
    return out

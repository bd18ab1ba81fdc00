"""SWE-bench's published per-repository environment specs, when its package provides them.

`swebench` 4.x ships `MAP_REPO_VERSION_TO_SPECS` (Python version, extra pins per release
series) for the repositories in its benchmark; 5.x moved environments into images and has no
such table. When the table is importable and knows the (repo, version), its Python and pins
are used; otherwise the recipe is inferred from the repository.
"""

from __future__ import annotations

from typing import Any

from spice_engine.langs.python_recipe import Recipe


def _specs() -> dict[str, dict[str, dict[str, Any]]]:
    try:
        from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS  # type: ignore[import-not-found,unused-ignore]
    except Exception:  # noqa: BLE001 - absent, or a version without the table
        return {}
    return dict(MAP_REPO_VERSION_TO_SPECS)


def published_recipe(repo: str, version: str, date: str) -> Recipe | None:
    spec = _specs().get(repo, {}).get(version)
    if not spec or "python" not in spec:
        return None
    pins = [str(p) for p in spec.get("pip_packages") or []]
    return Recipe(
        python=str(spec["python"]),
        extra_packages=["pytest", *pins],
        resolve_before=date,
        env={"SETUPTOOLS_SCM_PRETEND_VERSION": f"{version}.0"},
        source="swebench",
    )

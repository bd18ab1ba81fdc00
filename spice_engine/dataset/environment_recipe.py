"""The environment an instance was validated in, written as data (`environment_recipe`): enough
to build it again and run the tests without our code reading the tree — the way SWE-rebench
and SWE-bench-Live rows carry their own install.

Python's is the recipe `spice validate` inferred (its install commands, Python, test command).
Another language's is its plan as the environment was built from it (`spice-plan.json` in the
environment's folder): the toolchain, the install's commands and what each may reach, the
files of the tree the install sees, the test command as it was run.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from spice_engine.langs import FALLBACK
from spice_engine.langs.base import CACHE, ENV, JOB, TESTBED
from spice_engine.validate import door

FORMAT = "spice-recipe/1"
PLAN_FILE = "spice-plan.json"
"""Where the executor of other languages keeps the plan an environment was built from."""
_LINE = re.compile(r"^([A-Za-z]+)\s*v?(\d+(?:\.\d+)?)")


class RecipeMissing(LookupError):
    """The environment's plan is not in the environments folder (built on another machine,
    or removed): the row cannot say how its environment was built."""


class Step(BaseModel):
    """One install command, run at the tree with the environment writable."""

    argv: list[str]
    env: dict[str, str] = Field(default_factory=dict)
    network: bool = False
    """Reaches the package registry (and only it); tests never have a network."""


class EnvironmentRecipe(BaseModel):
    """How the environment was built and the tests run (paths as the sandbox shows them)."""

    format: str = FORMAT
    language: str
    toolchain: str
    """The compiler or runtime with its version (`go1.26.8`, `python3.11`)."""
    setup_commit: str
    """The commit whose tree the install ran on."""
    setup_patches: list[str] = Field(default_factory=list)
    """Fields of the row applied to that tree before the install (`test_patch`, `patch`: the
    fix's manifests may add dependencies)."""
    install_sees: list[str] | None = None
    """The only files of the tree the install is given (None: the whole tree)."""
    install: list[Step] = Field(default_factory=list)
    registries: list[str] = Field(default_factory=list)
    """The hosts (`host:port`) the install's networked steps could reach, besides the
    operator's own index."""
    env: dict[str, str] = Field(default_factory=dict)
    """Every command's environment, besides HOME, TMPDIR and PATH."""
    path: list[str] = Field(default_factory=list)
    """Folders put first on PATH (the toolchain's)."""
    tree_binds: dict[str, str] = Field(default_factory=dict)
    """Folders of the built environment shown inside the tree, read-only, for the tests."""
    caches: list[str] = Field(default_factory=list)
    test_command: list[str]
    """The tests' command as run, `NAME=value` assignments first."""
    test_files: list[str] = Field(default_factory=list)
    paths: dict[str, str] = Field(
        default_factory=lambda: {"tree": TESTBED, "env": ENV, "job": JOB, "cache": CACHE}
    )
    python: dict[str, Any] | None = None
    """Python's own recipe (extras, requirement files, dates resolved at, runner)."""


def toolchain_line(toolchain: str) -> str:
    """A row's `version` outside Python: the toolchain's release line (`go1.26.8` -> `go1.26`,
    `jdk17` -> `jdk17`), which groups instances whose environments take the same toolchain."""
    found = _LINE.match(toolchain.strip())
    return f"{found.group(1)}{found.group(2)}" if found else toolchain.strip()


def recipe_of(row: Mapping[str, Any], envs_dir: Path) -> EnvironmentRecipe:
    """The recipe of a validated row (`spice.validation` holds what was recorded)."""
    validation = (row.get("spice") or {}).get("validation") or {}
    language = str(validation.get("language") or FALLBACK)
    files = [str(f) for f in validation.get("test_files") or []]
    if validation.get("recipe"):  # a recipe's environment (Python's): its install commands
        return _python(row, validation, files)
    plan = validation.get("plan") or _plan(envs_dir, str(validation.get("environment") or ""))
    toolchain = plan.get("toolchain") or {}
    return EnvironmentRecipe(
        language=language,
        toolchain=str(validation.get("toolchain") or toolchain.get("name") or ""),
        setup_commit=str(row.get("base_commit") or ""),
        setup_patches=["test_patch", "patch"],
        install_sees=sorted(plan["input_digests"]) if plan.get("input_digests") else None,
        install=[
            Step(argv=list(p["argv"]), env=p.get("env") or {}, network=bool(p.get("network")))
            for p in plan.get("install") or []
        ],
        registries=list(plan.get("registries") or []),
        env=dict(toolchain.get("env") or {}) | dict(plan.get("env") or {}),
        path=list(toolchain.get("path") or []),
        tree_binds=dict(plan.get("tree_binds") or {}),
        caches=list(plan.get("caches") or []),
        test_command=[str(a) for a in validation.get("test_command") or []],
        test_files=files,
    )


def _python(
    row: Mapping[str, Any], validation: Mapping[str, Any], files: list[str]
) -> EnvironmentRecipe:
    recipe = dict(validation.get("recipe") or {})
    python = str(validation.get("python") or recipe.get("python") or "3")
    test_cmd = str(recipe.get("test_cmd") or "python -m pytest -rA")
    return EnvironmentRecipe(
        language=str(validation.get("language") or FALLBACK),
        toolchain=f"python{python}",
        setup_commit=str(row.get("environment_setup_commit") or row.get("base_commit") or ""),
        install=[
            Step(argv=["sh", "-c", str(cmd)], network=True)
            for cmd in recipe.get("install_cmds") or []
        ],
        registries=list((validation.get("plan") or {}).get("registries") or []),
        env={str(k): str(v) for k, v in (recipe.get("env") or {}).items()},
        test_command=[*shlex.split(test_cmd), *files],
        test_files=files,
        python={k: v for k, v in recipe.items() if k != "install_cmds"},
    )


def _plan(envs_dir: Path, key: str) -> dict[str, Any]:
    """The plan kept with the environment: for rows validated before the record held it."""
    if not key or not door.is_file(envs_dir / key, PLAN_FILE):
        raise RecipeMissing(f"no plan of environment {key!r} under {envs_dir}")
    # The host wrote it after the install ran (door.write_text replaces whatever was there).
    plan: dict[str, Any] = json.loads(door.read_text(envs_dir / key, PLAN_FILE))
    return plan

"""Work out, for a set of instances, each one's version, environment setup commit and recipe.

As SWE-bench does, instances of one repository are grouped by `version` (the release series
at their base commit) and each group's environment is built from its newest base commit: its
`environment_setup_commit`.
"""

from __future__ import annotations

import re
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from spice_engine.langs.python_recipe import Recipe, infer_recipe, is_requirement_file
from spice_engine.langs.python_runners import RUNNER_FILES, log_parser_for
from spice_engine.langs.python_swebench_specs import published_recipe
from spice_engine.validate import gitwork

_META = {"setup.py", "setup.cfg", "pyproject.toml", "tox.ini"}
_DECLARED = re.compile(
    r"""^(?:__version__\s*=\s*['"]v?(\d+)\.(\d+)"""
    r"""|(?:VERSION|numversion)\s*=\s*\(\s*(\d+)\s*,\s*(\d+))"""
)
_VERSION_NAMES = (
    *("__init__.py", "__version__.py", "version.py", "_version.py"),
    *("release.py", "__pkginfo__.py"),  # sympy's, pylint's
)
_VERSION_FILES = tuple(
    f":(glob){where}*/{name}" for where in ("", "src/") for name in _VERSION_NAMES
)
_VENDORED = re.compile(r"(^|/)(tests?|testing|docs?|examples?|vendor|_vendor|packages)/")
_VERSION_LINE = re.compile(r"""^\s*version\s*=\s*["']?(\d+)\.(\d+)""", re.MULTILINE)


def metadata_file(name: str) -> bool:
    return (
        name in _META
        or name in RUNNER_FILES
        or is_requirement_file(name)
        or (name.startswith(".github/workflows/") and name.endswith(("yml", "yaml")))
    )


def declared_version(git_dir: Path, commit: str) -> str | None:
    """`major.minor` the project's own package declares at `commit` (`__version__ = "3.0.0+"`,
    `VERSION = (3, 0, 0, "alpha")`): the release under development there, which is what
    SWE-bench records. The shallowest such file wins (a vendored package sits deeper)."""
    try:
        found = gitwork.git(
            git_dir,
            "grep",
            *("-e", "__version__", "-e", "VERSION", "-e", "numversion"),
            commit,
            "--",
            *_VERSION_FILES,
        )
    except gitwork.GitError:
        return None  # no match (git grep exits 1), or nothing to search
    best: tuple[int, str, str] | None = None
    for line in found.splitlines():
        _, path, text = line.split(":", 2)
        if (m := _DECLARED.search(text)) and not _VENDORED.search(path):
            major, minor = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            # The minor as written: SWE-bench's `2022.03` is not `2022.3`.
            candidate = (path.count("/"), path, f"{int(major)}.{minor}")
            best = candidate if best is None or candidate < best else best
    return best[2] if best else None


def instance_version(git_dir: Path, commit: str) -> str:
    """`major.minor` the package declares (SWE-bench's rule), else from the newest release
    tag (projects whose version lives in tags, e.g. setuptools_scm), else the project
    metadata, else `0.0`."""
    if found := declared_version(git_dir, commit) or gitwork.release_version(git_dir, commit):
        return found
    for name in ("pyproject.toml", "setup.cfg", "setup.py"):
        try:
            text = gitwork.git(git_dir, "show", f"{commit}:{name}")
        except gitwork.GitError:
            continue
        if m := _VERSION_LINE.search(text):
            return f"{m.group(1)}.{m.group(2)}"
    return "0.0"


class Group:
    def __init__(
        self, repo: str, version: str, setup_commit: str, recipe: Recipe | None, error: str = ""
    ) -> None:
        self.repo, self.version, self.setup_commit = repo, version, setup_commit
        self.recipe, self.error = recipe, error


def plan_groups(
    rows: Iterable[dict[str, Any]], git_dirs: dict[str, Path], pythons: list[str]
) -> dict[str, Group]:
    """instance_id -> its group, for every row whose repository and base commit are known."""
    members: dict[tuple[str, str], list[tuple[str, str, str]]] = defaultdict(list)
    for row in rows:
        repo, base = str(row.get("repo")), str(row.get("base_commit") or "")
        git_dir = git_dirs.get(repo)
        if git_dir is None or not base or not gitwork.has_commit(git_dir, base):
            continue
        version = instance_version(git_dir, base)
        date = gitwork.commit_date(git_dir, base)
        members[(repo, version)].append((date, base, str(row["instance_id"])))
    groups: dict[str, Group] = {}
    for (repo, version), found in members.items():
        # The newest base commit that can be checked out: one a partial snapshot cannot
        # give would fail every instance of the group, not only its own.
        ordered = sorted(found, reverse=True)
        whole = (m for m in ordered if not gitwork.lacks_contents(git_dirs[repo], m[1]))
        date, setup, _ = next(whole, ordered[0])
        group = _group(git_dirs[repo], repo, version, setup, date, pythons)
        groups.update({iid: group for _, _, iid in found})
    return groups


def _group(
    git_dir: Path, repo: str, version: str, setup: str, date: str, pythons: list[str]
) -> Group:
    recipe = published_recipe(repo, version, date)
    if recipe is None:
        with tempfile.TemporaryDirectory(prefix="spice-meta-") as tmp:
            gitwork.export_files(git_dir, setup, Path(tmp), metadata_file)
            try:
                recipe = infer_recipe(Path(tmp), date, pythons, version)
            except LookupError as exc:
                return Group(repo, version, setup, None, str(exc))
    parser = log_parser_for(repo, recipe.test_runner)
    return Group(repo, version, setup, recipe.model_copy(update={"log_parser": parser}))

"""A project's editable install, captured once per environment and replayed into each job.

Installing the project editable costs a job ~2 s (the build backend starts, writes metadata
and version files); its result is a handful of text files naming the tree. Captured when the
environment is built, it is written into each job's venv and tree with the job's path instead,
in milliseconds. Whatever could make the copy wrong installs for real: packaging files that
differ from the commit the capture was made at, compiled extensions, files that are not text.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from spice_engine.validate import door
from spice_engine.validate.gitwork import GitError
from spice_engine.validate.tree import Tree

TREE = "@SPICE_TREE@"
PACKAGING_FILES = ("setup.py", "setup.cfg", "pyproject.toml")
COMPILED = (".so", ".pyd", ".dylib", ".dll")
MAX_FILE_BYTES = 1_000_000
SEARCH_PTH = "_spice_search_path.pth"
"""The folders holding the project's packages, on `sys.path` as `setup.py develop` put them."""


class EditableInstall(BaseModel):
    packaging: str
    """Hash of the packaging files the install was made from."""
    site_files: dict[str, str]
    """Path under site-packages -> text, the tree's path written as TREE."""
    tree_files: dict[str, str]
    """Files the install wrote into the tree (version files, egg-info) -> text."""


def packaging_hash(tree: Tree) -> str:
    """Of the packaging files as the commit (and patches) have them: the host's record."""
    digest = hashlib.sha256()
    for name in PACKAGING_FILES:
        try:
            text = tree.source(name).encode() if tree.tracked(name) else b"-"
        except GitError:
            text = b"-"
        digest.update(name.encode() + b"\0" + text)
    return digest.hexdigest()


def _text(root: Path, path: Path) -> str | None:
    """The file's text; None for anything not replayable, and for anything the door refuses
    (the sandboxed build wrote these files and their RECORD: a symlink or a `../` must not make
    the worker read one of its own files into the next job)."""
    if path.suffix in COMPILED:
        return None
    try:
        return door.read_bytes(root, path.relative_to(root).as_posix(), MAX_FILE_BYTES).decode()
    except (UnicodeDecodeError, ValueError, OSError, door.DoorRefused):
        return None


def _record_paths(root: Path, dist_info: Path) -> list[str]:
    text = door.read_text(root, (dist_info / "RECORD").relative_to(root).as_posix())
    return [row[0] for row in csv.reader(text.splitlines()) if row]


def capture(
    root: Path, site: Path, dist_infos: list[Path], tree: Tree, seen_as: Path | None = None
) -> EditableInstall | None:
    """What the editable install of `tree` (built where it was `seen_as`) put in `site` and in
    the tree; None: not replayable (compiled parts, binary files, anything outside
    site-packages but scripts)."""
    names = {str(tree.path), str(tree.path.resolve()), str(seen_as or tree.path)}
    site_files: dict[str, str] = {}
    for dist_info in dist_infos:
        for rel in _record_paths(root, dist_info):
            if rel.startswith("..") or rel.endswith(".pyc"):
                continue  # console scripts and byte code: the test command needs neither
            text = _text(root, site / rel)
            if text is None:
                return None
            for name in sorted(names, key=len, reverse=True):
                text = text.replace(name, TREE)
            site_files[rel] = text
    tree_files: dict[str, str] = {}
    for rel in tree.untracked():
        if "__pycache__" in Path(rel).parts:
            continue
        text = _text(tree.path, tree.path / rel)
        if text is None:
            return None
        tree_files[rel] = text
    return EditableInstall(
        packaging=packaging_hash(tree), site_files=site_files, tree_files=tree_files
    )


def replay(
    install: EditableInstall, root: Path, site: Path, tree: Tree, seen_as: Path | None = None
) -> bool:
    """Write the captured install for `tree` (run where it is `seen_as`) into `site` (under the
    job's scratch `root`); False (nothing written) when the tree's packaging differs from the
    one captured."""
    if packaging_hash(tree) != install.packaging:
        return False
    if any(tree.tracked(rel) for rel in install.tree_files):
        return False  # the commit tracks a file the install generated elsewhere
    for rel, text in install.tree_files.items():
        tree.put(rel, text)
    for rel, text in install.site_files.items():
        where = (site / rel).relative_to(root).as_posix()
        door.write_text(root, where, text.replace(TREE, str(seen_as or tree.path)))
    return True


def editable_dists(root: Path, site: Path) -> list[Path]:
    """Distributions installed editable (PEP 610: `dir_info.editable` in direct_url.json)."""
    found = []
    for dist_info in sorted(site.glob("*.dist-info")):
        try:
            rel = (dist_info / "direct_url.json").relative_to(root).as_posix()
            origin = json.loads(door.read_text(root, rel, MAX_FILE_BYTES))
        except (OSError, ValueError, door.DoorRefused):
            continue
        if isinstance(origin, dict) and (origin.get("dir_info") or {}).get("editable") is True:
            found.append(dist_info)
    return found


def search_roots(root: Path, site: Path, seen_tree: str) -> list[str]:
    """The folders of the tree holding the project's top-level packages, as the editable
    install's import hook maps them (`calc` -> `/testbed/calc` gives `/testbed`), one per line.

    setuptools' hook serves `import`, but tools that search `sys.path` for files (astroid,
    so pylint loading its own checkers in a subprocess started in another folder) find nothing
    through it; `setup.py develop`, which the older environments SWE-bench graded had, put
    these folders on `sys.path`. Only folders inside the tree are taken (the hook's file was
    written by the sandboxed build)."""
    found: list[str] = []
    for dist_info in editable_dists(root, site):
        for rel in _record_paths(root, dist_info):
            if not rel.endswith("_finder.py") or rel.startswith(".."):
                continue
            text = _text(root, site / rel)
            for name, path in _mapping(text or "").items():
                where = PurePosixPath(path)
                parent = str(where.parent)
                inside = parent == seen_tree or parent.startswith(seen_tree.rstrip("/") + "/")
                if "." not in name and where.name == name and inside:
                    found.append(f"{parent}\n")
    return list(dict.fromkeys(found))


def _mapping(source: str) -> dict[str, str]:
    """The `MAPPING = {...}` literal of a setuptools editable finder; {} if none."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    for node in module.body:
        target: ast.expr
        value: ast.expr | None
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "MAPPING" and value is not None:
            try:
                found = ast.literal_eval(value)
            except ValueError:
                return {}
            if isinstance(found, dict):
                return {str(k): str(v) for k, v in found.items() if isinstance(v, str)}
    return {}

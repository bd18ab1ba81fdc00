"""A project's editable install, captured once per environment and replayed into each job.

Installing the project editable costs a job ~2 s (the build backend starts, writes metadata
and version files); its result is a handful of text files naming the tree. Captured when the
environment is built, it is written into each job's venv and tree with the job's path instead,
in milliseconds. Whatever could make the copy wrong installs for real: packaging files that
differ from the commit the capture was made at, compiled extensions, files that are not text.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

from pydantic import BaseModel

from spice_engine.validate import gitwork

TREE = "@SPICE_TREE@"
PACKAGING_FILES = ("setup.py", "setup.cfg", "pyproject.toml")
COMPILED = (".so", ".pyd", ".dylib", ".dll")
MAX_FILE_BYTES = 1_000_000


class EditableInstall(BaseModel):
    packaging: str
    """Hash of the packaging files the install was made from."""
    site_files: dict[str, str]
    """Path under site-packages -> text, the tree's path written as TREE."""
    tree_files: dict[str, str]
    """Files the install wrote into the tree (version files, egg-info) -> text."""


def packaging_hash(tree: Path) -> str:
    digest = hashlib.sha256()
    for name in PACKAGING_FILES:
        path = tree / name
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"-"))
    return digest.hexdigest()


def _text(path: Path, within: Path) -> str | None:
    """The file's text; None for anything not replayable, and for a path that leaves `within`
    (the sandboxed build wrote these files and their RECORD: a symlink or a `../` must not make
    the worker read one of its own files into the next job)."""
    if path.is_symlink() or not path.resolve().is_relative_to(within.resolve()):
        return None
    if path.suffix in COMPILED or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None


def _record_paths(dist_info: Path) -> list[str]:
    with (dist_info / "RECORD").open(encoding="utf-8", newline="") as f:
        return [row[0] for row in csv.reader(f) if row]


def capture(
    site: Path, dist_infos: list[Path], tree: Path, seen_as: Path | None = None
) -> EditableInstall | None:
    """What the editable install of `tree` (built where it was `seen_as`) put in `site` and in
    the tree; None: not replayable (compiled parts, binary files, anything outside
    site-packages but scripts)."""
    names = {str(tree), str(tree.resolve()), str(seen_as or tree)}
    site_files: dict[str, str] = {}
    for dist_info in dist_infos:
        for rel in _record_paths(dist_info):
            if rel.startswith("..") or rel.endswith(".pyc"):
                continue  # console scripts and byte code: the test command needs neither
            text = _text(site / rel, site)
            if text is None:
                return None
            for name in sorted(names, key=len, reverse=True):
                text = text.replace(name, TREE)
            site_files[rel] = text
    tree_files: dict[str, str] = {}
    for rel in gitwork.untracked(tree):
        if "__pycache__" in Path(rel).parts:
            continue
        text = _text(tree / rel, tree)
        if text is None:
            return None
        tree_files[rel] = text
    return EditableInstall(
        packaging=packaging_hash(tree), site_files=site_files, tree_files=tree_files
    )


def replay(install: EditableInstall, site: Path, tree: Path, seen_as: Path | None = None) -> bool:
    """Write the captured install for `tree` (run where it is `seen_as`) into `site`; False
    (nothing written) when the tree's packaging differs from the one captured."""
    if packaging_hash(tree) != install.packaging:
        return False
    if any(gitwork.is_tracked(tree, rel) for rel in install.tree_files):
        return False  # the commit tracks a file the install generated elsewhere
    for rel, text in install.tree_files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    for rel, text in install.site_files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text.replace(TREE, str(seen_as or tree)), encoding="utf-8")
    return True


def editable_dists(site: Path) -> list[Path]:
    """Distributions installed editable (PEP 610: `dir_info.editable` in direct_url.json)."""
    found = []
    for dist_info in sorted(site.glob("*.dist-info")):
        try:
            origin = json.loads((dist_info / "direct_url.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(origin, dict) and (origin.get("dir_info") or {}).get("editable") is True:
            found.append(dist_info)
    return found

"""Check the paths and identifiers an issue names against a repository checkout."""

from __future__ import annotations

import os
import re
from pathlib import Path

from spice_engine.issue_signals.models import CodeMention

_SOURCE_SUFFIXES = frozenset(
    {".py", ".pyi", ".pyx", ".c", ".h", ".js", ".ts", ".go", ".rs", ".java"}
)
_SKIP_DIRS = frozenset(
    {".git", ".hg", ".tox", ".venv", "venv", "node_modules", "__pycache__", "build"}
)
MAX_SCANNED_BYTES = 50_000_000
"""A budget on source text read per check: huge checkouts are checked partially, not slowly."""


def _source_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        found += [Path(dirpath, f) for f in filenames if Path(f).suffix in _SOURCE_SUFFIXES]
    return found


def _path_exists(root: Path, files: list[Path], name: str) -> bool:
    """A mentioned path exists when some file's path ends with it (site-packages prefixes cut)."""
    tail = name.replace("\\", "/").lstrip("./~")
    parts = [p for p in tail.split("/") if p and p != "..."]
    for i in range(len(parts)):
        suffix = "/".join(parts[i:])
        if any(f.as_posix().endswith("/" + suffix) for f in files):
            return True
    return False


def check_mentions(mentions: list[CodeMention], repo_path: Path) -> list[CodeMention]:
    """Each mention with `exists` set: found as a file path, a module, or a defined name."""
    files = _source_files(repo_path)
    rel = [f.relative_to(repo_path) for f in files]
    modules = {".".join(r.with_suffix("").parts) for r in rel}
    names = {m.name.split(".")[-1] for m in mentions if m.kind in ("function", "class")}
    defined = _defined_names(files, names)
    checked = []
    for m in mentions:
        if m.kind == "path":
            exists = _path_exists(repo_path, files, m.name)
        elif m.kind == "module":
            parts = m.name.split(".")
            exists = any(".".join(parts[:i]) in modules for i in range(len(parts), 0, -1)) or (
                parts[-1] in defined
            )
        else:
            exists = m.name.split(".")[-1] in defined
        checked.append(m.model_copy(update={"exists": exists}))
    return checked


def _defined_names(files: list[Path], wanted: set[str]) -> set[str]:
    """Which of the wanted names are defined (def/class/assignment) somewhere in the sources."""
    if not wanted:
        return set()
    pattern = re.compile(
        r"^\s*(?:(?:async\s+)?def|class)\s+(" + "|".join(map(re.escape, sorted(wanted))) + r")\b"
        r"|^\s*(" + "|".join(map(re.escape, sorted(wanted))) + r")\s*=",
        re.M,
    )
    found: set[str] = set()
    budget = MAX_SCANNED_BYTES
    for f in files:
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue  # unreadable files (broken symlinks) simply do not define anything
        budget -= len(text)
        for m in pattern.finditer(text):
            found.add(m.group(1) or m.group(2))
        if found >= wanted or budget < 0:
            break
    return found

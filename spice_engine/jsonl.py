"""JSON Lines read as the commands take them: blank lines skipped, each object numbered by its
line, and a line that is not a JSON object one `InputError` naming the file and the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spice_engine.errors import InputError


def numbered_objects(path: Path, text: str | None = None) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of `path` (or of `text`, read from it)."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from exc
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{n}: not JSON ({exc.msg})") from exc
        if not isinstance(item, dict):
            raise InputError(f"{path}:{n}: not a JSON object")
        found.append((n, item))
    return found


def instances(path: Path, needed: tuple[str, ...] = ("instance_id",)) -> list[dict[str, Any]]:
    """Each line's object, every one holding the `needed` fields."""
    rows = []
    for n, row in numbered_objects(path):
        if missing := [k for k in needed if k not in row]:
            raise InputError(f"{path}:{n}: needs {', '.join(needed)} (no {', '.join(missing)})")
        rows.append(row)
    return rows

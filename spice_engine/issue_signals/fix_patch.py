"""What a fix changes: files, enclosing functions and classes, source lines (from a unified diff)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import unidiff

_DEF = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)")


@dataclass
class FixLocation:
    """The files, enclosing definitions and source lines a patch changes."""

    files: list[str] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    """Functions and methods whose body (or definition) the fix changes."""
    new_functions: set[str] = field(default_factory=set)
    """Functions the fix defines from scratch: only naming them exactly points at them."""
    classes: set[str] = field(default_factory=set)
    """Classes whose body the fix changes outside any method."""
    lines: dict[str, list[int]] = field(default_factory=dict)
    owners: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)
    """Per file, each changed source line and the function it belongs to (None: no function)."""
    added: list[str] = field(default_factory=list)
    """Substantial added lines, whitespace removed (to recognise a fix quoted in the issue)."""
    removed: set[str] = field(default_factory=set)
    """Removed lines, whitespace removed: an added line among them was moved, not written."""


def fix_location(patch: str) -> FixLocation | None:
    """Parse a unified diff; None when it has no file or cannot be parsed."""
    try:
        files = unidiff.PatchSet(patch)
    except (unidiff.UnidiffParseError, ValueError):
        return None
    loc = FixLocation()
    defined: dict[str, set[str]] = {"added": set(), "kept": set()}
    for f in files:
        loc.files.append(f.path)
        for hunk in f:
            _read_hunk(loc, f.path, hunk, defined)
    # A function the fix writes from scratch did not exist for the issue to point at.
    loc.new_functions = loc.functions & (defined["added"] - defined["kept"])
    loc.functions -= loc.new_functions
    for owners in loc.owners.values():
        owners[:] = [(n, o if o in loc.functions else None) for n, o in owners]
    return loc if loc.files else None


def _read_hunk(
    loc: FixLocation, path: str, hunk: unidiff.Hunk, defined: dict[str, set[str]]
) -> None:
    # git drops the header's indentation: its body ends at a definition no deeper than any line
    # seen so far (a sibling), or at top-level code.
    header = _DEF.match(hunk.section_header or "")
    current = header.groups() if header else None
    in_header = current is not None
    shallowest: int | None = None
    last_source = hunk.source_start
    for line in hunk:
        last_source = line.source_line_no or last_source
        text = line.value.rstrip("\n")
        if not text.strip():
            continue
        is_def = _DEF.match(text)
        indent = _indent(text)
        starts_definition = bool(is_def) or text.lstrip().startswith("@")
        if in_header and (
            indent == 0 or (starts_definition and (shallowest is None or indent <= shallowest))
        ):
            current, in_header = None, False
        shallowest = indent if shallowest is None else min(shallowest, indent)
        if is_def:
            defined["added" if line.is_added else "kept"].add(is_def.group(3))
            current, in_header = is_def.groups(), False
        if not (line.is_added or line.is_removed):
            continue
        if line.is_added and _is_substantial(text):
            loc.added.append(re.sub(r"\s+", "", text))
        elif line.is_removed:
            loc.removed.add(re.sub(r"\s+", "", text))
        owner: tuple[str, ...] | None = None
        if is_def:
            owner = is_def.groups()
        elif current and (in_header or indent > len(current[0])):
            owner = current
        if owner:
            _add(loc, owner)
        number = line.source_line_no or last_source
        loc.lines.setdefault(path, []).append(number)
        func = owner[2] if owner and owner[1] == "def" else None
        loc.owners.setdefault(path, []).append((number, func))


def _is_substantial(text: str) -> bool:
    stripped = text.strip()
    return len(stripped) >= 12 and not stripped.startswith(("#", '"' * 3, "'" * 3))


def quotes_fix(fix: FixLocation, raw_issue: str) -> int:
    """How many of the fix's substantial new lines the issue already contains.

    A line the fix only moves or re-indents is old code: a traceback quoting it proposes nothing.
    """
    squashed = re.sub(r"\s+", "", raw_issue)
    return sum(1 for a in dict.fromkeys(fix.added) if a not in fix.removed and a in squashed)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _add(loc: FixLocation, definition: tuple[str, ...]) -> None:
    _, kind, name = definition
    (loc.functions if kind == "def" else loc.classes).add(name)

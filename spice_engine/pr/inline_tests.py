"""Tests that live inside source files: Rust's `#[cfg(test)]` modules. A hunk of a source file
whose every change is inside such a module belongs to the test patch, the rest to the gold one.

Only the diff is at hand (a harvest reads the pull request's files, not the tree), so a hunk is
placed by what it shows: its section header (git names the enclosing item: `mod tests {` when
the hunk is inside a test module written at the file's top level, as `cargo` lays it out) and
its own lines (a `#[cfg(test)]` attribute before the changes, no closing brace at the left edge
between them).
"""

from __future__ import annotations

import re

_TEST_ATTRIBUTE = re.compile(r"^\s*#\[cfg\(test\)\]")
_TEST_MODULE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests?\b")
INLINE_SUFFIXES = (".rs",)


def is_test_hunk(header: str, lines: list[str]) -> bool:
    """Whether every change of a hunk (`lines` with their ` `/`+`/`-` marks) is inside an
    inline test module."""
    inside = bool(_TEST_MODULE.match(header))
    changed = False
    for line in lines:
        mark, text = line[:1], line[1:]
        if _TEST_ATTRIBUTE.match(text):
            inside = True
        if mark in "+-" and text.strip():
            if not inside:
                return False
            changed = True
        if text.startswith("}"):  # the module (or any top-level item) ends here
            inside = False
    return changed


def split_hunks(file_text: str) -> tuple[str, str] | None:
    """A source file's diff as (gold, test) texts, each with the file's header; None when no
    hunk is an inline test's (the file stays whole)."""
    lines = file_text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("@@ ")]
    if not starts:
        return None
    header = "".join(lines[: starts[0]])
    gold: list[str] = []
    test: list[str] = []
    for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        hunk = lines[begin:end]
        section = hunk[0].split("@@", 2)[-1].strip()
        body = [x for x in hunk[1:] if not x.startswith("\\")]
        (test if is_test_hunk(section, body) else gold).append("".join(hunk))
    if not test:
        return None
    return (header + "".join(gold) if gold else ""), header + "".join(test)

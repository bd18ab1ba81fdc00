"""The tokens a fix writes, as opposed to those it only moves: a line the fix reformats or
extends keeps most of its old tokens, and a mutant of an old token tests the code before the
fix, not the fix (sphinx-7268 rewraps `add_config_value(..., "signature", True, ENUM(...))`
to add one candidate; its default and rebuild flag are not the fix). The same holds in every
language: dayjs-658 splits a condition over four lines to add one conjunct, and the old ones,
moved, are not the fix either."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from unidiff import PatchSet

from spice_engine.strength.relevance import can_matter

_TOKEN = re.compile(r"""[A-Za-z_0-9]+|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S""")
MOVED_RUN = 3
Span = tuple[int, int, int]
"""(line, first column, column after the last) of a token in the fixed file."""


def _tokens(lines: list[tuple[int, str]]) -> list[tuple[str, Span]]:
    return [
        (m.group(), (n, m.start(), m.end())) for n, text in lines for m in _TOKEN.finditer(text)
    ]


def new_tokens(patch: str, keep: Callable[[str], bool] | None = None) -> dict[str, list[Span]]:
    """File (Python's, or those `keep` accepts) -> where the tokens are that the fix adds (those
    of lines it only adds, and in lines it changes, the ones not already in the lines they
    replace; every token of a hunk's added lines when the hunk adds none)."""
    out: dict[str, list[Span]] = {}
    for pf in PatchSet(patch):
        wanted = keep(pf.path) if keep is not None else pf.path.endswith(".py")
        if pf.is_removed_file or not wanted or not can_matter(pf.path):
            continue
        spans: list[Span] = []
        for hunk in pf:
            removed = [(0, ln.value) for ln in hunk if ln.is_removed]
            added = [(ln.target_line_no or 0, ln.value) for ln in hunk if ln.is_added]
            old, new = _tokens(removed), _tokens(added)
            matcher = difflib.SequenceMatcher(
                a=[t for t, _ in old], b=[t for t, _ in new], autojunk=False
            )
            # A run of three or more tokens in the same order is moved code; a lone `return` or
            # `x` that happens to match is not (the new lines of clamp() are all new).
            blocks = [b for b in matcher.get_matching_blocks() if b.size >= MOVED_RUN]
            kept = {j for b in blocks for j in range(b.b, b.b + b.size)}
            written = [span for j, (_, span) in enumerate(new) if j not in kept]
            # A hunk that only deletes (sphinx-7440 drops `.lower()` and `lowercase=True`)
            # writes no token: the lines it leaves are what it changed, mutated whole.
            spans += written or [span for _, span in new]
        out[pf.path] = spans
    return out


def touches(spans: list[Span], start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether a new token lies inside the source range [start, end)."""
    return any(start <= (line, a) and (line, b) <= end for line, a, b in spans)

"""The tokens a fix writes, as opposed to those it only moves: a line the fix reformats or
extends keeps most of its old tokens, and a mutant of an old token tests the code before the
fix, not the fix (sphinx-7268 rewraps `add_config_value(..., "signature", True, ENUM(...))`
to add one candidate; its default and rebuild flag are not the fix). The same holds in every
language: dayjs-658 splits a condition over four lines to add one conjunct, and the old ones,
moved, are not the fix either. Code moved from another hunk of the file is not written either:
fmt-3750 moves `prefix_append` above the function that now calls it, and eight mutants of its
old body (one shown: `> 0xff` → `>= 0xff`, never given 255) tested the code before the fix."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from unidiff import PatchSet

from spice_engine.strength.relevance import can_matter

_TOKEN = re.compile(r"""[A-Za-z_0-9]+|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\S""")
MOVED_RUN = 3
MOVED_FAR = 8
"""A run of tokens moved from another hunk is longer: a short one (`return x ;`, `) ; }`) recurs
by chance across a file."""
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
        removed = [
            [t for t, _ in _tokens([(0, ln.value) for ln in h if ln.is_removed])] for h in pf
        ]
        for n, hunk in enumerate(pf):
            new = _tokens([(ln.target_line_no or 0, ln.value) for ln in hunk if ln.is_added])
            # A run of three or more tokens in the same order is moved code; a lone `return` or
            # `x` that happens to match is not (the new lines of clamp() are all new).
            kept = _matched(removed[n], new, MOVED_RUN)
            elsewhere = [_matched(r, new, MOVED_FAR) for k, r in enumerate(removed) if k != n]
            moved = set().union(*elsewhere)
            written = [span for j, (_, span) in enumerate(new) if j not in kept | moved]
            # A hunk that only deletes (sphinx-7440 drops `.lower()` and `lowercase=True`)
            # writes no token: the lines it leaves are what it changed, mutated whole.
            spans += written or [span for j, (_, span) in enumerate(new) if j not in moved]
        out[pf.path] = spans
    return out


def _matched(old: list[str], new: list[tuple[str, Span]], run: int) -> set[int]:
    """Indexes of `new` in runs of at least `run` tokens found in `old`, in the same order."""
    matcher = difflib.SequenceMatcher(a=old, b=[t for t, _ in new], autojunk=False)
    blocks = [b for b in matcher.get_matching_blocks() if b.size >= run]
    return {j for b in blocks for j in range(b.b, b.b + b.size)}


def touches(spans: list[Span], start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether a new token lies inside the source range [start, end)."""
    return any(start <= (line, a) and (line, b) <= end for line, a, b in spans)

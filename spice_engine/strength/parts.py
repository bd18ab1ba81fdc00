"""A fix cut into its parts: each file and each hunk, the fix without one of them, and the
lines it adds or changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from unidiff import Hunk, PatchedFile, PatchSet

from spice_engine.strength.comments import code_of, same_code
from spice_engine.strength.relevance import can_matter


@dataclass(frozen=True)
class Part:
    """A file of the fix (`hunk` None) or one hunk of it (1-based), and the fix without it."""

    path: str
    hunk: int | None
    header: str
    without: str
    added: frozenset[int] = frozenset()
    """Lines (after the fix) the part adds; `removed`: lines (before it) it takes out."""
    removed: frozenset[int] = frozenset()
    comments_only: bool = False
    """What it adds and removes differs only in comments: leaving it out changes nothing."""


def _file_text(pf: PatchedFile, hunks: list[object]) -> str:
    info = str(pf.patch_info) if pf.patch_info is not None else ""
    head = f"--- {pf.source_file}\n+++ {pf.target_file}\n"
    return info + head + "".join(str(h) for h in hunks)


def parts(patch: str) -> list[Part]:
    """Every part whose removal leaves some fix: files when there are several, hunks when a
    file has several (a file of one hunk is that hunk)."""
    files = list(PatchSet(patch))
    texts = [_file_text(pf, list(pf)) for pf in files]
    out: list[Part] = []
    if len(files) > 1:
        for i, pf in enumerate(files):
            rest = "".join(t for j, t in enumerate(texts) if j != i)
            added, removed = _lines(list(pf))
            whole = f"{pf.path} (whole file)"
            out.append(Part(pf.path, None, whole, rest, added, removed, _comments_only(pf)))
    for i, pf in enumerate(files):
        hunks = list(pf)
        if len(hunks) < 2:
            continue
        for h, hunk in enumerate(hunks):
            mine = _file_text(pf, [x for x in hunks if x is not hunk])
            rest = "".join(mine if j == i else t for j, t in enumerate(texts))
            header = f"{pf.path} @@ -{hunk.source_start},{hunk.source_length} " + (
                f"+{hunk.target_start},{hunk.target_length} @@ {hunk.section_header}".rstrip()
            )
            lines = _lines([hunk])
            out.append(Part(pf.path, h + 1, header, rest, *lines, _comments_only(pf, [hunk])))
    return out


def _lines(hunks: list[Hunk]) -> tuple[frozenset[int], frozenset[int]]:
    added = {ln.target_line_no for h in hunks for ln in h if ln.is_added}
    removed = {ln.source_line_no for h in hunks for ln in h if ln.is_removed}
    return frozenset(n for n in added if n), frozenset(n for n in removed if n)


def _comments_only(pf: PatchedFile, hunks: list[Hunk] | None = None) -> bool:
    of = list(pf) if hunks is None else hunks
    added = [ln.value for h in of for ln in h if ln.is_added]
    removed = [ln.value for h in of for ln in h if ln.is_removed]
    return same_code(added, removed, pf.path)


def _code_changed(hunk: Hunk, path: str) -> set[int]:
    """The lines (after the fix) `hunk` adds whose code is not that of a line it removes: a
    line whose only change is its comment is none of them."""
    old = {code_of(ln.value, path) for ln in hunk if ln.is_removed}
    return {
        ln.target_line_no
        for ln in hunk
        if ln.is_added and ln.target_line_no and code_of(ln.value, path) not in old
    }


def changed_lines(patch: str, keep: Callable[[str], bool] | None = None) -> dict[str, set[int]]:
    """File (Python's, or those `keep` accepts; none under a benchmark, documentation or
    example directory) -> the line numbers (after the fix, 1-based) whose code the fix adds
    or changes (not those whose comment alone it changes)."""
    out: dict[str, set[int]] = {}
    for pf in PatchSet(patch):
        wanted = keep(pf.path) if keep is not None else pf.path.endswith(".py")
        if pf.is_removed_file or not wanted or not can_matter(pf.path):
            continue
        lines = {n for hunk in pf for n in _code_changed(hunk, pf.path)}
        if lines:
            out[pf.path] = lines
    return out

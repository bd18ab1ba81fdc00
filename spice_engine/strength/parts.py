"""A fix cut into its parts: each file and each hunk, the fix without one of them, and the
lines it adds or changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from unidiff import Hunk, PatchedFile, PatchSet

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
            out.append(Part(pf.path, None, f"{pf.path} (whole file)", rest, added, removed))
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
            out.append(Part(pf.path, h + 1, header, rest, *_lines([hunk])))
    return out


def _lines(hunks: list[Hunk]) -> tuple[frozenset[int], frozenset[int]]:
    added = {ln.target_line_no for h in hunks for ln in h if ln.is_added}
    removed = {ln.source_line_no for h in hunks for ln in h if ln.is_removed}
    return frozenset(n for n in added if n), frozenset(n for n in removed if n)


def changed_lines(patch: str, keep: Callable[[str], bool] | None = None) -> dict[str, set[int]]:
    """File (Python's, or those `keep` accepts; none under a benchmark, documentation or
    example directory) -> the line numbers (after the fix, 1-based) the fix adds or changes."""
    out: dict[str, set[int]] = {}
    for pf in PatchSet(patch):
        wanted = keep(pf.path) if keep is not None else pf.path.endswith(".py")
        if pf.is_removed_file or not wanted or not can_matter(pf.path):
            continue
        lines = {ln.target_line_no for hunk in pf for ln in hunk if ln.is_added}
        if lines:
            out[pf.path] = {n for n in lines if n is not None}
    return out

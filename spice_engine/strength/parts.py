"""A fix cut into its parts: each file and each hunk, the fix without one of them, and the
lines it adds or changes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from unidiff import PatchedFile, PatchSet


@dataclass(frozen=True)
class Part:
    """A file of the fix (`hunk` None) or one hunk of it (1-based), and the fix without it."""

    path: str
    hunk: int | None
    header: str
    without: str


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
            out.append(Part(pf.path, None, f"{pf.path} (whole file)", rest))
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
            out.append(Part(pf.path, h + 1, header, rest))
    return out


def changed_lines(patch: str, keep: Callable[[str], bool] | None = None) -> dict[str, set[int]]:
    """File (Python's, or those `keep` accepts) -> the line numbers (after the fix, 1-based)
    the fix adds or changes."""
    out: dict[str, set[int]] = {}
    for pf in PatchSet(patch):
        wanted = keep(pf.path) if keep is not None else pf.path.endswith(".py")
        if pf.is_removed_file or not wanted:
            continue
        lines = {ln.target_line_no for hunk in pf for ln in hunk if ln.is_added}
        if lines:
            out[pf.path] = {n for n in lines if n is not None}
    return out

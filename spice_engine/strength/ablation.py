"""The fix without each of its parts in turn: a part the fail-to-pass tests pass without is
untested.

Only parts that can matter are checked: none in benchmark, documentation or example files,
none that changes only comments (a trailing one included), none (in Python) made only of
docstrings and type-only code. What the budget cuts is
said in `skipped`, never left to read as "no untested part"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spice_engine.strength.parts import Part, parts
from spice_engine.strength.relevance import can_matter, inert_lines
from spice_engine.strength.result import TestStrength, UntestedPart
from spice_engine.validate.gitwork import GitError
from spice_engine.validate.outcomes import passed

if TYPE_CHECKING:
    from spice_engine.strength.runs import Runner
    from spice_engine.validate.tree import Tree


def _inert(part: Part, fixed: dict[str, set[int]], before: dict[str, set[int]]) -> bool:
    """A part that changes only comments (in any language), or a Python part whose every
    added and removed line is inert (a docstring, a comment, type-only code): leaving it out
    changes nothing a test could see."""
    if part.comments_only:
        return True
    if not part.path.endswith(".py"):
        return False
    return part.added <= fixed.get(part.path, set()) and part.removed <= before.get(
        part.path, set()
    )


def _inert_by_path(tree: Tree, paths: set[str]) -> dict[str, set[int]]:
    out = {}
    for path in paths:
        text = tree.text(path)
        out[path] = inert_lines(text) if text is not None else set()
    return out


def ablate(runner: Runner, gold: str, f2p: list[str], record: TestStrength) -> None:
    """Each part of the fix left out in turn: a part the fail-to-pass tests pass without is
    untested."""
    found = [p for p in parts(gold) if can_matter(p.path)]
    if not found:
        return
    tree = runner.session.tree
    python = {p.path for p in found if p.path.endswith(".py")}
    fixed = _inert_by_path(tree, python)
    tree.apply(gold, reverse=True)
    try:
        before = _inert_by_path(tree, python)
        found = [p for p in found if not _inert(p, fixed, before)]
        record.parts_total = len(found)
        for part in found:
            if runner.left() <= 0:
                break
            try:
                tree.apply(part.without)
            except GitError:
                record.parts_total -= 1  # the rest does not apply without it: not a part
                continue
            try:
                done = runner.outcomes(f2p)
            finally:
                tree.apply(part.without, reverse=True)
            if done.killed:
                continue  # cut short: no finding either way
            record.parts_checked += 1
            if all(passed(done.outcomes, t) for t in f2p):
                record.untested.append(
                    UntestedPart(path=part.path, hunk=part.hunk, header=part.header)
                )
    finally:
        tree.apply(gold)
    if record.parts_checked < record.parts_total:
        why = "budget" if runner.left() <= 0 else "runs cut off"
        record.skipped.append(
            f"hunk check skipped: {why} ({record.parts_checked} of {record.parts_total} parts "
            "checked)"
        )

"""The fix without each of its parts in turn: a part the fail-to-pass tests pass without is
untested (shared by Python's measurement and the other languages')."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spice_engine.strength.parts import parts
from spice_engine.strength.result import TestStrength, UntestedPart
from spice_engine.validate.gitwork import GitError
from spice_engine.validate.outcomes import passed

if TYPE_CHECKING:
    from spice_engine.strength.plain_measure import PlainRunner
    from spice_engine.strength.runs import Runner


def ablate(runner: Runner | PlainRunner, gold: str, f2p: list[str], record: TestStrength) -> None:
    """Each part of the fix left out in turn: a part the fail-to-pass tests pass without is
    untested."""
    found = parts(gold)
    if not found:
        return
    tree = runner.session.tree
    tree.apply(gold, reverse=True)
    try:
        for part in found:
            if runner.left() <= 0:
                break
            try:
                tree.apply(part.without)
            except GitError:
                continue  # the rest does not apply without it: not a part on its own
            try:
                done = runner.outcomes(f2p)
            finally:
                tree.apply(part.without, reverse=True)
            record.parts_checked += 1
            if not done.killed and all(passed(done.outcomes, t) for t in f2p):
                record.untested.append(
                    UntestedPart(path=part.path, hunk=part.hunk, header=part.header)
                )
    finally:
        tree.apply(gold)

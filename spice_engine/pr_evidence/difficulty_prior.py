"""A 0-3 difficulty prior from the gold patch's size and shape, with its features shown."""

from __future__ import annotations

import math

from spice_engine.pr_evidence.introduced import Introduced
from spice_engine.pr_evidence.models import DifficultyPrior
from spice_engine.pr_evidence.patch_parse import FileDiff

# Weights and cut points were fitted on one half of the development split (instances whose
# sha256(instance_id) is even) and checked on the other; see README "Pull-request evidence".
WEIGHTS = {
    "log2_changed_lines": 1.0,
    "extra_files": 0.0,
    "extra_hunks": 0.0,
    "new_definitions": 0.0,
    "spread": 0.0,
}
CUTS = (2.6, 4.6, 6.6)
"""Points below CUTS[0] -> 0, below CUTS[1] -> 1, below CUTS[2] -> 2, else 3."""


def features(gold: list[FileDiff], new: Introduced) -> dict[str, float]:
    """Shape of the non-test part of the gold patch."""
    source = [diff for diff in gold if not diff.is_test]
    changed = sum(len(diff.added) + len(diff.removed) for diff in source)
    hunks = sum(len(diff.post_hunks) for diff in source)
    directories = {diff.path.rsplit("/", 1)[0] if "/" in diff.path else "" for diff in source}
    definitions = sum(1 for name in new.names if name.kind in ("def", "class", "exception"))
    return {
        "changed_lines": float(changed),
        "log2_changed_lines": math.log2(1 + changed),
        "files": float(len(source)),
        "extra_files": float(max(len(source) - 1, 0)),
        "hunks": float(hunks),
        "extra_hunks": float(max(hunks - 1, 0)),
        "new_definitions": float(definitions),
        "spread": float(max(len(directories) - 1, 0)),
        "test_files_in_gold": float(len(gold) - len(source)),
    }


def difficulty_prior(gold: list[FileDiff], new: Introduced) -> DifficultyPrior:
    shown = features(gold, new)
    points = sum(weight * shown[name] for name, weight in WEIGHTS.items())
    score = sum(points >= cut for cut in CUTS)
    return DifficultyPrior(score=score, points=round(points, 3), features=shown)

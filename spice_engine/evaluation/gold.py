"""Human labels of SWE-bench Verified (OpenAI's annotation CSV) as 0-3 scores per dimension."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from spice_engine.dimensions import REGISTRY, scored
from spice_engine.errors import InputError

DIMENSIONS = tuple(d.key for d in REGISTRY if scored(d))
GOLD_COLUMNS = {d.key: d.column for d in REGISTRY if scored(d)}
"""Dimension -> its column in a gold CSV (SWE-bench Verified's names for ours)."""
GOLD_VALUES = {text: score for d in REGISTRY for text, score in d.gold_values.items()}
"""Text labels of gold columns (the difficulty buckets) -> scores."""


def parse_score(value: str) -> int | None:
    """`1`, `1.0` or a difficulty bucket -> 0-3; empty or NaN -> None; anything else is an error."""
    text = value.strip()
    if not text or text.lower() == "nan":
        return None
    if text in GOLD_VALUES:
        return GOLD_VALUES[text]
    try:
        number = float(text)
    except ValueError as exc:
        raise InputError(f"not a 0-3 label: {value!r}") from exc
    if math.isnan(number):
        return None
    if number != int(number) or not 0 <= number <= 3:
        raise InputError(f"not a 0-3 label: {value!r}")
    return int(number)


def repo_of(instance_id: str) -> str:
    """`django__django-11099` -> `django/django` (SWE-bench instance ids)."""
    head = instance_id.rsplit("-", 1)[0]
    return head.replace("__", "/", 1) if "__" in head else head


def read_gold(path: Path) -> dict[str, dict[str, int]]:
    """instance_id -> {dimension: score} for every dimension the row has a label for."""
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as exc:
        raise InputError(f"cannot read gold labels {path}: {exc}") from exc
    if not rows or "instance_id" not in rows[0]:
        raise InputError(f"{path}: expected a CSV with an instance_id column")
    gold: dict[str, dict[str, int]] = {}
    for n, row in enumerate(rows, 2):
        labels: dict[str, int] = {}
        for dim, column in GOLD_COLUMNS.items():
            try:
                score = parse_score(row.get(column) or "")
            except InputError as exc:
                raise InputError(f"{path}:{n}: {column}: {exc}") from exc
            if score is not None:
                labels[dim] = score
        gold[row["instance_id"]] = labels
    return gold

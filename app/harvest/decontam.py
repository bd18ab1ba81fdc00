"""Decontamination: creation-date cutoffs and known public instance ids."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

PUBLIC_IDS = Path(__file__).resolve().parent / "data" / "swebench_public_ids.txt"
"""SWE-bench instance ids already public (from ../shared/data/swebench/instances.jsonl)."""


def read_ids(path: Path) -> set[str]:
    """Ids from a text file (one a line, `#` comments) or JSONL rows with `instance_id`."""
    ids: set[str] = set()
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            ids.add(str(json.loads(line)["instance_id"]))
        else:
            ids.add(line)
    return ids


def known_ids(extra: Iterable[Path] = (), public: bool = True) -> set[str]:
    """The shipped public list (unless `public=False`) plus the user's own lists."""
    ids = read_ids(PUBLIC_IDS) if public else set()
    for path in extra:
        ids |= read_ids(path)
    return ids


def parse_date(text: str) -> datetime:
    """`2024-05-01` or a full ISO 8601 time; naive values are UTC."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def created_after(created_at: str, cutoff: datetime | None) -> bool:
    """Strictly after the cutoff: a model trained up to that date cannot have seen the task."""
    return cutoff is None or parse_date(created_at) > cutoff

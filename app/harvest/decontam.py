"""Decontamination: creation-date cutoffs and known public instance ids."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

PUBLIC_IDS = Path(__file__).resolve().parent / "data" / "swebench_public_ids.txt"
"""SWE-bench instance ids already public (from ../shared/data/swebench/instances.jsonl)."""


_PULL = re.compile(
    r"^(?:https?://[^/\s]+/)?(?P<owner>[\w.-]+)/(?P<name>[\w.-]+)(?:#|/pull/|/pulls/)(?P<n>\d+)/?$"
)


def as_id(entry: str) -> str:
    """An instance id from an id or a pull request's identity (`owner/name#123`, its URL):
    instances are named for the pull request they come from, `owner__name-123`."""
    if m := _PULL.match(entry):
        return f"{m.group('owner')}__{m.group('name')}-{m.group('n')}"
    return entry


def read_ids(path: Path) -> set[str]:
    """Ids from a text file (one a line: an instance id, `owner/name#123` or a pull request's
    URL; `#` comments) or JSONL rows with `instance_id` (or `repo` and `pull_number`)."""
    ids: set[str] = set()
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            row = json.loads(line)
            if "instance_id" in row:
                ids.add(str(row["instance_id"]))
            else:
                ids.add(as_id(f"{row['repo']}#{row['pull_number']}"))
        else:
            ids.add(as_id(line))
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

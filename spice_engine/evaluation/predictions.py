"""Predictions to score: our JSONL results (with votes) or anyone's JSON / JSONL / CSV labels."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from spice_engine.dimensions import REGISTRY
from spice_engine.errors import InputError
from spice_engine.evaluation.gold import DIMENSIONS, parse_score

# Where a dimension's label may sit in a record, first match wins.
DIMENSION_KEYS = {d.key: (d.key, *d.aliases) for d in REGISTRY if d.key in DIMENSIONS}
_CONTAINERS = ("spice", "labels", "assessment", "result", "dimensions")


class Prediction(BaseModel):
    """One item's predicted label under both aggregation rules (equal when there are no votes)."""

    majority: int
    max_of_votes: int
    votes: list[int] = Field(default_factory=list)


Predictions = dict[str, dict[str, Prediction]]
"""instance_id -> dimension -> prediction."""


def _to_score(value: Any, label_map: dict[str, int] | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise InputError(f"not a label: {value!r}")
    if isinstance(value, str) and label_map is not None:
        key = value.strip()
        for candidate in (key, key.upper(), key.lower()):
            if candidate in label_map:
                return label_map[candidate]
    return parse_score(str(value))


def _from_value(value: Any, label_map: dict[str, int] | None) -> Prediction | None:
    """A label, `{"label": ...}`, or our DimensionResult (`score` + `votes`)."""
    if isinstance(value, dict):
        if "label" in value:
            return _from_value(value["label"], label_map)
        if "score" not in value:
            return None
        majority = _to_score(value["score"], label_map)
        if majority is None:
            return None
        votes = [
            s
            for v in value.get("votes") or []
            if (s := _to_score(v.get("score") if isinstance(v, dict) else v, label_map)) is not None
        ]
        worst = _to_score(value.get("max_score"), label_map)
        if worst is None:
            worst = max(votes) if votes else majority
        return Prediction(majority=majority, max_of_votes=worst, votes=votes)
    score = _to_score(value, label_map)
    return None if score is None else Prediction(majority=score, max_of_votes=score)


def _record_id(record: dict[str, Any]) -> str | None:
    """`instance_id`, or SWE-bench's `owner__name-number` from our results' repo and number."""
    for holder in (record, record.get("instance") or {}, record.get("issue") or {}):
        if not isinstance(holder, dict):
            continue
        if holder.get("instance_id"):
            return str(holder["instance_id"])
        repo, number = holder.get("repo"), holder.get("number")
        if isinstance(repo, str) and "/" in repo and isinstance(number, int):
            return f"{repo.replace('/', '__', 1)}-{number}"
    return None


def _from_record(
    record: dict[str, Any], label_map: dict[str, int] | None, default_dim: str
) -> dict[str, Prediction]:
    out: dict[str, Prediction] = {}
    holders = [record] + [record[c] for c in _CONTAINERS if isinstance(record.get(c), dict)]
    for dim in DIMENSIONS:
        for holder in holders:
            key = next((k for k in DIMENSION_KEYS[dim] if k in holder), None)
            if key is None:
                continue
            pred = _from_value(holder[key], label_map)
            if pred is not None:
                out[dim] = pred
                break
    if not out and "label" in record:
        pred = _from_value(record["label"], label_map)
        if pred is not None:
            out[default_dim] = pred
    return out


def read_predictions(
    path: Path, label_map: dict[str, int] | None = None, default_dimension: str = "clarity"
) -> Predictions:
    """Read any supported predictions file; records without an instance_id are an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read predictions {path}: {exc}") from exc
    if path.suffix.lower() == ".csv":
        return _from_csv(text, path, label_map, default_dimension)
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # several JSON objects, one per line: JSONL below
        if isinstance(data, dict) and _record_id(data) is None:
            return _from_mapping(data, label_map, default_dimension)
        if isinstance(data, list):
            return _from_records(data, path, label_map, default_dimension)
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{n}: not JSON ({exc.msg})") from exc
    return _from_records(records, path, label_map, default_dimension)


def _from_mapping(
    data: dict[str, Any], label_map: dict[str, int] | None, default_dim: str
) -> Predictions:
    """`{instance_id: label | {"label": ...} | record}`."""
    out: Predictions = {}
    for iid, value in data.items():
        if isinstance(value, dict) and "label" not in value and "score" not in value:
            preds = _from_record(value, label_map, default_dim)
        else:
            pred = _from_value(value, label_map)
            preds = {default_dim: pred} if pred is not None else {}
        if preds:
            out[str(iid)] = preds
    return out


def _from_records(
    records: list[Any], path: Path, label_map: dict[str, int] | None, default_dim: str
) -> Predictions:
    out: Predictions = {}
    for n, record in enumerate(records, 1):
        if not isinstance(record, dict) or (iid := _record_id(record)) is None:
            raise InputError(f"{path}: record {n} has no instance_id")
        preds = _from_record(record, label_map, default_dim)
        if preds:
            out.setdefault(iid, {}).update(preds)
    return out


def _from_csv(
    text: str, path: Path, label_map: dict[str, int] | None, default_dim: str
) -> Predictions:
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or "instance_id" not in rows[0]:
        raise InputError(f"{path}: expected a CSV with an instance_id column")
    records: list[Any] = [{k: v for k, v in r.items() if v not in (None, "")} for r in rows]
    return _from_records(records, path, label_map, default_dim)

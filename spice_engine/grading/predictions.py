"""Predictions as SWE-bench's harness takes them (`instance_id`, `model_name_or_path`,
`model_patch`; JSONL, or one JSON array), and the dataset rows they are graded on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from spice_engine.errors import InputError
from spice_engine.jsonl import numbered_objects


class Prediction(BaseModel):
    instance_id: str
    model_name_or_path: str
    model_patch: str | None = None
    """None: no patch at all (`patch_is_None`); "" an empty one."""

    @property
    def empty(self) -> bool:
        return not self.model_patch


def read_objects(path: Path) -> list[dict[str, Any]]:
    """A JSONL file's objects, or a JSON array's; InputError naming the line otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from exc
    if text.lstrip().startswith("["):
        try:
            found = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not JSON ({exc.msg})") from exc
        items = list(enumerate(found, 1))
    else:
        items = numbered_objects(path, text)
    for n, item in items:
        if not isinstance(item, dict):
            raise InputError(f"{path}:{n}: not a JSON object")
    return [item for _, item in items]


def read_predictions(path: Path) -> list[Prediction]:
    found: list[Prediction] = []
    for n, item in enumerate(read_objects(path), 1):
        try:
            found.append(Prediction.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(f"{path}: prediction {n}: {where}: {first['msg']}") from exc
    # One prediction per instance and model (a file may hold several models' runs).
    keys = [(p.model_name_or_path, p.instance_id) for p in found]
    if twice := sorted({f"{m}: {i}" for m, i in keys if keys.count((m, i)) > 1}):
        raise InputError(f"{path}: predicted twice by one model: {', '.join(twice[:5])}")
    return found


def read_dataset(path: Path) -> dict[str, dict[str, Any]]:
    """Instance id -> row, each with what grading needs."""
    rows: dict[str, dict[str, Any]] = {}
    needed = ("instance_id", "repo", "base_commit", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")
    for n, row in enumerate(read_objects(path), 1):
        if missing := [k for k in needed if k not in row]:
            raise InputError(f"{path}: row {n} lacks {', '.join(missing)}")
        rows[str(row["instance_id"])] = row
    return rows


def lists_of(row: dict[str, Any]) -> tuple[list[str], list[str]]:
    """FAIL_TO_PASS and PASS_TO_PASS (JSON-encoded in SWE-bench's rows, or lists)."""
    lists = []
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        value = row[key]
        try:
            value = json.loads(value) if isinstance(value, str) else value
        except json.JSONDecodeError as exc:
            raise InputError(f"{row['instance_id']}: {key} is not JSON ({exc.msg})") from exc
        if not isinstance(value, list):
            raise InputError(f"{row['instance_id']}: {key} is not a list")
        lists.append([str(t) for t in value])
    return lists[0], lists[1]

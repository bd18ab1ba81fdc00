"""Validated instances as Multi-SWE-bench dataset records (spice_engine.dataset.msb_format),
and rows of a `spice validate` output file taken as stored instances."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from app.harvest.export import ExportFilter, is_validated, keep, validated_fields
from app.harvest.store import StoredInstance
from spice_engine.dataset.msb_format import msb_record
from spice_engine.dataset.runs import LogsMissing, runs_of
from spice_engine.errors import InputError
from spice_engine.jsonl import instances


def msb_records(
    rows: Iterable[StoredInstance], flt: ExportFilter
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The records of the validated rows the filter keeps, and why others could not be
    written (instance id -> reason): their runs' logs are gone, or they name no pull."""
    records: list[dict[str, Any]] = []
    left_out: dict[str, str] = {}
    for row in rows:
        if not keep(row, flt) or not is_validated(row):
            continue
        validation = row.labels.get("validation") or {}
        whole = validated_fields(row) | {"spice": row.labels}
        try:
            record = msb_record(whole, runs_of(validation), list(validation.get("flaky") or []))
        except (LogsMissing, InputError) as exc:
            left_out[str(row.instance["instance_id"])] = str(exc)
            continue
        records.append(record.model_dump(mode="json"))
    return records, left_out


def rows_from_file(path: Path) -> list[StoredInstance]:
    """A `spice validate` output (JSONL) as stored instances: the row's own fields, its
    `spice` block as the labels."""
    rows = []
    for row in instances(path):
        spice = row.get("spice")
        labels = dict(spice) if isinstance(spice, dict) else {}
        fields = {k: v for k, v in row.items() if k != "spice"}
        rows.append(StoredInstance(instance=fields, labels=labels))
    return rows

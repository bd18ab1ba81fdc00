"""Export stored instances as SWE-bench JSONL or Parquet, with a `spice` block of our labels."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from app.harvest.build import SweInstance
from app.harvest.decontam import created_after
from app.harvest.label import SpiceLabels
from app.harvest.store import StoredInstance
from spice_engine.dataset.completion import RECIPE_FIELD

Format = Literal["swebench-jsonl", "parquet", "multi-swe-bench"]
Agreement = Literal["majority", "unanimous"]
SWEBENCH_FIELDS = list(SweInstance.model_fields)
_ACCEPTED = {"majority": {"majority", "unanimous"}, "unanimous": {"unanimous"}}
# SWE-bench grades an instance with empty FAIL_TO_PASS and PASS_TO_PASS as resolved by any
# patch that applies. An unvalidated row written on request names this test instead, which
# no log ever reports as passed: it grades as not resolved, never as silently resolved.
NOT_VALIDATED = "spice::not-validated"
# SWE-bench Verified's `difficulty` strings, by our difficulty score (0 = easiest).
DIFFICULTY = ("<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours")


class ExportFilter(BaseModel):
    verified_like: bool = False
    """SWE-bench Verified's rule: clarity < 2 and tests < 2."""
    min_agreement: Agreement | None = None
    """Every voted dimension at least this agreed (unlabelled rows are dropped)."""
    after: datetime | None = None
    exclude_ids: set[str] = Field(default_factory=set)
    include_unvalidated: bool = False
    """Also write instances without a passing validation (their FAIL_TO_PASS never passes)."""


def validated_fields(row: StoredInstance) -> dict[str, object]:
    """The instance as validation left it: its computed fields over the harvested ones."""
    fields = (row.labels.get("validation") or {}).get("fields") or {}
    return dict(row.instance) | dict(fields)


def is_validated(row: StoredInstance) -> bool:
    status = ((row.labels.get("validation") or {}).get("status")) or ""
    f2p = validated_fields(row).get("FAIL_TO_PASS") or "[]"
    return status == "valid" and json.loads(str(f2p)) != []


def keep(row: StoredInstance, flt: ExportFilter) -> bool:
    if row.instance["instance_id"] in flt.exclude_ids:
        return False
    if not flt.include_unvalidated and not is_validated(row):
        return False
    if not created_after(row.instance["created_at"], flt.after):
        return False
    spice = SpiceLabels.model_validate(row.labels)
    if flt.verified_like:
        clarity, tests = spice.dimension("clarity").score, spice.dimension("tests").score
        if clarity is None or tests is None or clarity >= 2 or tests >= 2:
            return False
    if flt.min_agreement:
        voted = [d for d in spice.dimensions().values() if d.score is not None]
        accepted = _ACCEPTED[flt.min_agreement]
        if not voted or any(d.agreement not in accepted for d in voted):
            return False
    return True


def to_record(row: StoredInstance, difficulty: bool = False) -> dict[str, object]:
    """SWE-bench's fields in SWE-bench's order (then Verified's `difficulty`), then `spice`."""
    instance = validated_fields(row)
    record: dict[str, object] = {name: instance.get(name, "") for name in SWEBENCH_FIELDS}
    if is_validated(row):
        harness = ("image", "eval_script", "log_parser", "eval_type", RECIPE_FIELD)
        record |= {name: instance[name] for name in harness if name in instance}
    else:
        record["FAIL_TO_PASS"] = json.dumps([NOT_VALIDATED])
    # Validated into the fixed shape: every row gets the same columns, whatever its age.
    spice = SpiceLabels.model_validate(row.labels)
    if difficulty:
        score = spice.dimension("difficulty").score
        record["difficulty"] = DIFFICULTY[score] if score is not None else ""
    record["spice"] = spice.model_dump()
    return record


def select_records(rows: Iterable[StoredInstance], flt: ExportFilter) -> list[dict[str, object]]:
    return [to_record(r, flt.verified_like) for r in rows if keep(r, flt)]


def write(records: list[dict[str, object]], path: Path, fmt: Format) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "swebench-jsonl" and path.suffix == ".json":
        # SWE-bench's loader reads `.json` as one JSON array, `.jsonl` as lines.
        path.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
        return
    if fmt in ("swebench-jsonl", "multi-swe-bench"):
        with path.open("w", encoding="utf-8") as out:
            for record in records:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise RuntimeError(f"parquet export needs a working pyarrow: {exc}") from exc

    pq.write_table(pa.Table.from_pylist(records), path)

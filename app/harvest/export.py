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

Format = Literal["swebench-jsonl", "parquet"]
Agreement = Literal["majority", "unanimous"]
SWEBENCH_FIELDS = list(SweInstance.model_fields)
_ACCEPTED = {"majority": {"majority", "unanimous"}, "unanimous": {"unanimous"}}


class ExportFilter(BaseModel):
    verified_like: bool = False
    """SWE-bench Verified's rule: clarity < 2 and tests < 2."""
    min_agreement: Agreement | None = None
    """Every voted dimension at least this agreed (unlabelled rows are dropped)."""
    after: datetime | None = None
    exclude_ids: set[str] = Field(default_factory=set)


def keep(row: StoredInstance, flt: ExportFilter) -> bool:
    if row.instance["instance_id"] in flt.exclude_ids:
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


def to_record(row: StoredInstance) -> dict[str, object]:
    """SWE-bench's fields in SWE-bench's order, then `spice`."""
    record: dict[str, object] = {name: row.instance.get(name, "") for name in SWEBENCH_FIELDS}
    # Validated into the fixed shape: every row gets the same columns, whatever its age.
    record["spice"] = SpiceLabels.model_validate(row.labels).model_dump()
    return record


def select_records(rows: Iterable[StoredInstance], flt: ExportFilter) -> list[dict[str, object]]:
    return [to_record(r) for r in rows if keep(r, flt)]


def write(records: list[dict[str, object]], path: Path, fmt: Format) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "swebench-jsonl":
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

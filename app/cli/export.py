"""`spice export`: harvested instances as SWE-bench JSONL, Parquet or Multi-SWE-bench's records,
filtered and decontaminated."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from app.cli.common import emit_json, fail, settings_with
from spice_engine.errors import InputError

if TYPE_CHECKING:
    from app.harvest.export import Agreement, Format
    from app.harvest.store import StoredInstance


OutOption = Annotated[Path, typer.Option("--out", "-o", help="File to write.")]
FormatOption = Annotated[
    str, typer.Option("--format", help="swebench-jsonl, parquet or multi-swe-bench (JSONL).")
]
FORMATS = ("swebench-jsonl", "parquet", "multi-swe-bench")
InputOption = Annotated[
    Path | None,
    typer.Option(
        "--input", help="Export the rows of a `spice validate` output instead of the store."
    ),
]
RepoOption = Annotated[str | None, typer.Option(help="Only this owner/name.")]
VerifiedFlag = Annotated[
    bool, typer.Option("--verified-like", help="Keep clarity < 2 and tests < 2.")
]
AgreementOption = Annotated[
    str | None, typer.Option(help="majority or unanimous, on every voted dimension.")
]
AfterOption = Annotated[
    str | None, typer.Option(help="Only instances created after this date (a cutoff).")
]
ExcludeOption = Annotated[
    list[Path] | None, typer.Option(help="File of instance ids to leave out (repeatable).")
]
UnvalidatedFlag = Annotated[
    bool,
    typer.Option(
        "--include-unvalidated",
        help="Also write instances `spice validate` did not pass (they never grade resolved).",
    ),
]
PublicFlag = Annotated[
    bool,
    typer.Option("--keep-public", help="Keep instances whose ids are already public in SWE-bench."),
]


def export(
    out: OutOption,
    fmt: FormatOption = "swebench-jsonl",
    repo: RepoOption = None,
    verified_like: VerifiedFlag = False,
    min_agreement: AgreementOption = None,
    after: AfterOption = None,
    exclude_ids: ExcludeOption = None,
    include_unvalidated: UnvalidatedFlag = False,
    keep_public: PublicFlag = False,
    input_file: InputOption = None,
) -> None:
    """Write the stored instances with SWE-bench's fields and a `spice` block of our labels."""
    from app.harvest.decontam import known_ids, parse_date
    from app.harvest.export import ExportFilter, select_records, write

    if fmt not in FORMATS:
        fail(f"--format must be {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "multi-swe-bench" and (out.suffix != ".jsonl" or include_unvalidated):
        fail("--format multi-swe-bench writes validated rows to a .jsonl file only")
    if fmt == "parquet" and out.suffix in (".json", ".jsonl"):
        fail(f"--format parquet cannot write {out.name}: use a .parquet file")
    if fmt == "swebench-jsonl" and out.suffix not in (".json", ".jsonl"):
        fail(f"--out {out.name}: swebench-jsonl writes .jsonl (lines) or .json (one array)")
    if min_agreement not in (None, "majority", "unanimous"):
        fail(f"--min-agreement must be majority or unanimous, not {min_agreement!r}")
    try:
        flt = ExportFilter(
            verified_like=verified_like,
            min_agreement=_agreement(min_agreement),
            after=parse_date(after) if after else None,
            exclude_ids=known_ids(exclude_ids or [], public=not keep_public),
            include_unvalidated=include_unvalidated,
        )
    except (ValueError, OSError, KeyError) as exc:
        fail(f"bad filter: {exc}")
    rows = _rows(input_file, repo)
    left_out: dict[str, str] = {}
    if fmt == "multi-swe-bench":
        from app.harvest.export_msb import msb_records

        records, left_out = msb_records(rows, flt)
        for iid, why in left_out.items():
            typer.echo(f"export: {iid} left out: {why}", err=True)
    else:
        records = select_records(rows, flt)
    try:
        write(records, out, _format(fmt))
    except RuntimeError as exc:
        fail(str(exc))
    summary = {"stored": len(rows), "exported": len(records), "out": str(out), "format": fmt}
    emit_json(summary | ({"left_out": len(left_out)} if left_out else {}))


def _rows(input_file: Path | None, repo: str | None) -> list[StoredInstance]:
    """The store's instances (of `repo`), or a validated file's rows."""
    from app.harvest.export_msb import rows_from_file
    from app.harvest.store import HarvestStore
    from app.store.opening import open_store

    if input_file is None:
        return HarvestStore(open_store(settings_with()).sessions).instances(repo)
    try:
        rows = rows_from_file(input_file)
    except (InputError, OSError) as exc:
        fail(f"--input: {exc}")
    return [r for r in rows if repo is None or r.instance.get("repo") == repo]


def _agreement(value: str | None) -> Agreement | None:
    return "unanimous" if value == "unanimous" else "majority" if value == "majority" else None


def _format(value: str) -> Format:
    known: dict[str, Format] = {"parquet": "parquet", "multi-swe-bench": "multi-swe-bench"}
    return known.get(value, "swebench-jsonl")

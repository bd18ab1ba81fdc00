"""`spice split-diff`: split a PR diff into gold (source) and test patches."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import emit_json, fail


def split_diff_command(
    file: Annotated[Path, typer.Argument(help="Unified diff file ('-' for stdin).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    test_glob: Annotated[
        list[str] | None, typer.Option(help="Extra glob for test files (repeatable).")
    ] = None,
    source_glob: Annotated[
        list[str] | None, typer.Option(help="Glob forcing files to be source (repeatable).")
    ] = None,
) -> None:
    """Split a diff per file into the gold patch (source) and the test patch, byte-exact."""
    from spice_engine.errors import SpiceError
    from spice_engine.pr.diff_split import SplitRules, split_diff

    rules = SplitRules(test_globs=test_glob or [], source_globs=source_glob or [])
    try:
        raw = typer.get_binary_stream("stdin").read() if str(file) == "-" else file.read_bytes()
        # surrogateescape keeps non-UTF-8 bytes through the split unchanged.
        split = split_diff(raw.decode("utf-8", "surrogateescape"), rules)
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror}")
    except SpiceError as exc:
        fail(f"{file}: {exc}")
    if as_json:
        emit_json(
            {
                "gold": split.gold.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                "test": split.test.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                "files": [{"path": f.path, "kind": f.kind} for f in split.files],
            }
        )
        return
    for f in split.files:
        typer.echo(f"{f.kind:6}  {f.path}")

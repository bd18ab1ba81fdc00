"""`spice validate` as a user runs it, on rows of one repository: the run and the rows it
wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SPICE = str(Path(sys.executable).parent / "spice")


def spice_validate(
    rows: list[dict[str, str]], repo: Path, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`spice validate` on `rows` of the repository at `repo`: the run, and its rows."""
    given = tmp_path / "rows.jsonl"
    given.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "validated.jsonl"
    name = rows[0]["repo"]
    done = subprocess.run(
        [SPICE, "validate", str(given), "--repo", f"{name}={repo}", "--out", str(out)],
        capture_output=True,
        text=True,
        env=os.environ | {"SPICE_DATA_DIR": str(tmp_path / "data")},
        timeout=600,
    )
    got = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return done, got

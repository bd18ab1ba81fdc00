"""What installing from inputs costs (issue 46): validation of a tiny Rust crate (one registry
dependency) and a tiny JavaScript project (mocha), cold (a new data folder) and warm (the same
folder again), by this checkout and by a baseline checkout, in turn, in the same run.

It prints, per language and phase, the median seconds of each side and the median of the
paired ratios (this checkout / baseline). Both sides run the real `spice validate` in the
bubblewrap sandbox, the registries reached through the index proxy.

    .venv/bin/python benchmarks/install_isolation.py --baseline PATH [--runs 3]

PATH: another checkout of the project (e.g. `git worktree add /tmp/base <commit>`), run with
this venv and `PYTHONPATH=PATH`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "data"


def _instances(where: Path) -> dict[str, tuple[dict[str, Any], Path]]:
    from tests.install_attack_support import TALLY_DEPENDENCY
    from tests.lang_projects import patched_project, project_instance

    js = project_instance(DATA / "lang_js" / "calc", where / "js")
    rust = where / "rust"
    row = patched_project(DATA / "lang_rust", rust, "t/tally", TALLY_DEPENDENCY)
    return {"javascript": (js, where / "js"), "rust": (row, rust)}


def _validate(code: Path, row: dict[str, Any], repo: Path, data: Path, scratch: Path) -> float:
    given, out = scratch / "row.jsonl", scratch / f"out-{time.monotonic_ns()}.jsonl"
    given.write_text(json.dumps(row) + "\n")
    command = [str(Path(sys.executable).with_name("spice")), "validate", str(given)]
    command += ["--out", str(out), "--repo", f"{row['repo']}={repo}"]
    env = os.environ | {"SPICE_DATA_DIR": str(data), "PYTHONPATH": str(code)}
    started = time.monotonic()
    subprocess.run(command, env=env, capture_output=True, timeout=1800, check=False)
    took = time.monotonic() - started
    [done] = [json.loads(line) for line in out.read_text().splitlines()]
    status = done["spice"]["validation"]["status"]
    if status != "valid":
        raise SystemExit(f"{code}: {row['instance_id']} ended {status}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sides = {"current": ROOT, "baseline": args.baseline.resolve()}
    times: dict[tuple[str, str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="spice-isolation-") as tmp:
        scratch = Path(tmp)
        instances = _instances(scratch)
        for run in range(args.runs):
            # Alternate which side goes first: a drifting machine weighs on both alike.
            order = list(sides.items()) if run % 2 == 0 else list(sides.items())[::-1]
            for language, (row, repo) in instances.items():
                for side, code in order:
                    data = scratch / f"data-{side}-{language}-{run}"
                    cold = _validate(code, row, repo, data, scratch)
                    warm = _validate(code, row, repo, data, scratch)
                    times.setdefault((language, "cold", side), []).append(cold)
                    times.setdefault((language, "warm", side), []).append(warm)
                    shutil.rmtree(data, ignore_errors=True)
    print("language    phase  current s  baseline s  ratio (median of pairs)")
    for language in ("javascript", "rust"):
        for phase in ("cold", "warm"):
            now, before = times[(language, phase, "current")], times[(language, phase, "baseline")]
            ratio = statistics.median(a / b for a, b in zip(now, before, strict=True))
            print(
                f"{language:<11} {phase:<6} {statistics.median(now):9.1f}"
                f"  {statistics.median(before):10.1f}  {ratio:.2f}"
            )


if __name__ == "__main__":
    main()

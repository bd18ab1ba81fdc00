"""Did a change move validation? Development instances of every language validated by two
checkouts of the project, the same way a user runs it (`spice validate`), then diffed.

    .venv/bin/python benchmarks/validation_diff.py run --code /tmp/old --out old.json
    .venv/bin/python benchmarks/validation_diff.py run --code . --out new.json
    .venv/bin/python benchmarks/validation_diff.py diff old.json new.json

Results of 2026-12-02 (`6b7bc85` against the one-executor refactor): benchmarks/results/
validation_diff_old.json and validation_diff_new_cold.json (the new run's cold pass: the machine's
session ended its warm pass), 13 instances, none moved.

`run` validates each chosen instance twice with one data folder of its own (cold, then warm:
the environments built by the first) and keeps each instance's status, FAIL_TO_PASS,
PASS_TO_PASS and seconds. `diff` prints every instance whose status or lists differ, and the
ratio of the warm seconds (new over old, median and worst) from the two files; run both on
the same machine, one after the other, for the ratio to mean anything. Instances whose data
is absent (../shared/data) are skipped with a printed reason.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CHOSEN = {
    "validation/instances.jsonl": ["pytest-dev__pytest-5808", "pytest-dev__pytest-9249"],
    "validation/instances_requests.jsonl": ["psf__requests-1537", "psf__requests-6028"],
    "validation/instances_sphinx.jsonl": ["sphinx-doc__sphinx-7975"],
    "langs/instances.jsonl": ["1 per repo"],
    "langs/instances_c_cpp.jsonl": ["1 per repo"],
}
BUNDLES = {
    "pytest-dev/pytest": "validation/pytest.bundle",
    "psf/requests": "validation/requests.bundle",
    "sphinx-doc/sphinx": "validation/sphinx.bundle",
    "kkos/oniguruma": "langs/oniguruma.bundle",
}


def chosen_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name, ids in CHOSEN.items():
        path = DATA / name
        if not path.is_file():
            print(f"skipped {name}: absent ({path})", file=sys.stderr)
            continue
        seen: set[str] = set()
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if ids == ["1 per repo"]:
                if row["repo"] in seen or bundle_of(row["repo"]) is None:
                    continue
                seen.add(row["repo"])
            elif row["instance_id"] not in ids:
                continue
            rows.append(row)
    return rows


def bundle_of(repo: str) -> Path | None:
    path = DATA / BUNDLES.get(repo, f"langs/{repo.split('/')[1]}.bundle")
    return path if path.is_file() else None


def validate(code: Path, rows: list[dict[str, Any]], data: Path, out: Path) -> list[dict[str, Any]]:
    instances = data / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in rows))
    repos = {r["repo"] for r in rows} | {"kkos/oniguruma"}
    given = [
        a for repo in sorted(repos) if (b := bundle_of(repo)) for a in ("--repo", f"{repo}={b}")
    ]
    env = os.environ | {"PYTHONPATH": str(code), "SPICE_DATA_DIR": str(data)}
    run_cli = "from app.cli.main import run; run()"
    cmd = [sys.executable, "-c", run_cli, "validate", str(instances), "--out", str(out)]
    subprocess.run([*cmd, *given], env=env, cwd=code, check=False)
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def summary(row: dict[str, Any]) -> dict[str, Any]:
    validation = row["spice"]["validation"]
    return {
        "status": validation["status"],
        "detail": validation.get("detail", "")[:300],
        "FAIL_TO_PASS": sorted(json.loads(row["FAIL_TO_PASS"])),
        "PASS_TO_PASS": sorted(json.loads(row["PASS_TO_PASS"])),
        "seconds": validation.get("durations", {}).get("total", 0.0),
    }


def run(code: Path, out: Path) -> None:
    rows = chosen_rows()
    with tempfile.TemporaryDirectory(prefix="validation-diff-") as scratch:
        data = Path(scratch)
        cold = validate(code, rows, data, data / "cold.jsonl")
        warm = validate(code, rows, data, data / "warm.jsonl")
        result = {
            r["instance_id"]: {"cold": summary(r), "warm": summary(w)}
            for r, w in zip(cold, warm, strict=True)
        }
        shutil.rmtree(data / "envs", ignore_errors=True)
    out.write_text(json.dumps(result, indent=1, sort_keys=True))
    print(f"{len(result)} instances -> {out}")


def diff(old_path: Path, new_path: Path) -> int:
    old, new = json.loads(old_path.read_text()), json.loads(new_path.read_text())
    moved, ratios = 0, []
    for iid in sorted(old.keys() | new.keys()):
        a, b = old.get(iid, {}).get("warm"), new.get(iid, {}).get("warm")
        if a is None or b is None:
            print(f"{iid}: only in {'new' if a is None else 'old'}")
            moved += 1
            continue
        fields = ("status", "FAIL_TO_PASS", "PASS_TO_PASS")
        changed = [f for f in fields if a[f] != b[f]]
        if changed:
            moved += 1
            print(f"{iid}: {', '.join(changed)} moved: {a['status']} -> {b['status']}")
        if a["seconds"] > 0 and b["seconds"] > 0:
            ratios.append(b["seconds"] / a["seconds"])
    print(f"{len(old)} old, {len(new)} new, {moved} moved")
    if ratios:
        print(
            f"warm seconds new/old: median {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x"
        )
    return 1 if moved else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    one = sub.add_parser("run")
    one.add_argument("--code", type=Path, default=ROOT)
    one.add_argument("--out", type=Path, required=True)
    two = sub.add_parser("diff")
    two.add_argument("old", type=Path)
    two.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.what == "run":
        run(args.code.resolve(), args.out.resolve())
        return 0
    return diff(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())

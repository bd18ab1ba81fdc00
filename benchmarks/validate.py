"""Validation over the three development repositories (../shared/data/validation).

Published lists are hidden from the validator (stripped from its input) and compared after.
Per repository and instance it prints: cold seconds (empty environments and empty package
cache), warm seconds (environments reused), status, FAIL_TO_PASS identical to SWE-bench's and
PASS_TO_PASS Jaccard. Then, measured in the same run:
- reproducibility: a second cold validation in a fresh folder (a second empty package cache)
  gives the same status and lists;
- warm against cold (ratio), and the sandbox's warm overhead against the same validations
  unsandboxed (same environments; target <= 1.15x);
- throughput, warm, with 1 and 2 workers (instances per minute, and the 2-worker speed-up).

    .venv/bin/python benchmarks/validate.py [--ids ID,ID,...|all] [--no-reproduce]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from spice_engine.langs.executor import Executor
from spice_engine.runs.validate_rows import COMPUTED, validate_rows
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.gitwork import open_repository
from spice_engine.validate.sandbox import Sandbox, Unsandboxed

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "validation"
SOURCES = {
    "pytest-dev/pytest": ("instances.jsonl", "pytest.bundle"),
    "psf/requests": ("instances_requests.jsonl", "requests.bundle"),
    "sphinx-doc/sphinx": ("instances_sphinx.jsonl", "sphinx.bundle"),
}
# Two per repository, from different environments, so cold and warm both show.
DEFAULT = (
    "pytest-dev__pytest-5808,pytest-dev__pytest-9249,psf__requests-1537,psf__requests-6028,"
    "sphinx-doc__sphinx-7975,sphinx-doc__sphinx-9320"
)
Rows = list[dict[str, Any]]


def load(ids: str) -> tuple[Rows, Rows]:
    """The chosen published rows, and the same rows with every computed field removed."""
    published = [
        json.loads(line)
        for name, _ in SOURCES.values()
        for line in (DATA / name).read_text().splitlines()
        if line.strip()
    ]
    if ids != "all":
        wanted = ids.split(",")
        published = [r for r in published if r["instance_id"] in wanted]
    hidden = [{k: v for k, v in r.items() if k not in COMPUTED} for r in published]
    return published, hidden


def run(rows: Rows, data: Path, workers: int, sandbox: Sandbox | None = None) -> tuple[Rows, float]:
    repos = {r["repo"] for r in rows}
    git_dirs = {repo: open_repository(DATA / SOURCES[repo][1], data / "repos") for repo in repos}
    executor = Executor(data / "envs", sandbox or Bubblewrap())
    started = time.monotonic()
    out = validate_rows(rows, git_dirs, executor, data / "tmp", workers)
    return out, time.monotonic() - started


def lists(row: dict[str, Any]) -> tuple[list[str], list[str]]:
    return json.loads(row["FAIL_TO_PASS"]), json.loads(row["PASS_TO_PASS"])


def jaccard(a: list[str], b: list[str]) -> float:
    return len(set(a) & set(b)) / len(set(a) | set(b)) if set(a) | set(b) else 1.0


def seconds(row: dict[str, Any]) -> float:
    return float(row["spice"]["validation"].get("durations", {}).get("total", 0.0))


def status(row: dict[str, Any]) -> str:
    return str(row["spice"]["validation"]["status"])


def overhead(sandboxed: dict[str, Any], bare: dict[str, Any]) -> str:
    """Warm sandboxed time over the same validation unsandboxed (which has the network: a
    suite that tries it waits for its time-outs there, and fails at once in the sandbox)."""
    if seconds(bare) <= 0 or seconds(sandboxed) <= 0:
        return "-"
    return f"{seconds(sandboxed) / seconds(bare):.2f}x"


def report(published: Rows, cold: Rows, warm: Rows, bare: Rows, again: Rows | None) -> None:
    f2p_same, p2p = 0, []
    for repo in SOURCES:
        picked = [i for i, r in enumerate(published) if r["repo"] == repo]
        if not picked:
            continue
        print(f"\n{repo}")
        print(
            f"  {'instance':30} {'cold s':>7} {'warm s':>7} {'sandbox':>7} {'status':18} "
            f"{'F2P same':>8} {'P2P J':>6}"
        )
        for i in picked:
            want_f2p, want_p2p = lists(published[i])
            got_f2p, got_p2p = lists(cold[i])
            same = sorted(got_f2p) == sorted(want_f2p)
            f2p_same += same
            p2p.append(jaccard(got_p2p, want_p2p))
            print(
                f"  {published[i]['instance_id']:30} {seconds(cold[i]):7.1f} "
                f"{seconds(warm[i]):7.1f} {overhead(warm[i], bare[i]):>7} {status(cold[i]):18} "
                f"{'yes' if same else 'no':>8} "
                f"{p2p[-1]:6.2f}"
            )
    n = len(published)
    print(
        f"\nFAIL_TO_PASS identical: {f2p_same}/{n}; PASS_TO_PASS Jaccard median "
        f"{statistics.median(p2p):.2f}, min {min(p2p):.2f}"
    )
    if again is not None:
        same_twice = sum(
            (status(a), lists(a)) == (status(b), lists(b)) for a, b in zip(cold, again, strict=True)
        )
        print(f"reproducible from an empty package cache: {same_twice}/{n} same status and lists")
        for a, b in zip(cold, again, strict=True):
            if (status(a), lists(a)) != (status(b), lists(b)):
                print(f"  differs: {a['instance_id']}: {status(a)} vs {status(b)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ids", default=DEFAULT, help="comma-separated instance ids, or all")
    parser.add_argument("--no-reproduce", action="store_true", help="skip the second cold run")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"skipped: {DATA} is absent (the development data beside the repository)")
    published, hidden = load(args.ids)
    with tempfile.TemporaryDirectory(prefix="spice-bench-") as tmp:
        first, second = Path(tmp) / "a", Path(tmp) / "b"
        cold, cold_s = run(hidden, first, 1)
        again = None if args.no_reproduce else run(hidden, second, 1)[0]
        warm, warm1 = run(hidden, first, 1)
        bare, _ = run(hidden, first, 1, Unsandboxed())
        _, warm2 = run(hidden, first, 2)
    report(published, cold, warm, bare, again)
    n = len(hidden)
    ran = [i for i in range(n) if seconds(bare[i]) > 0 and seconds(warm[i]) > 0]
    if ran:
        overhead = [seconds(warm[i]) / seconds(bare[i]) for i in ran]
        print(
            f"sandbox overhead, warm, against the same runs unsandboxed: median "
            f"{statistics.median(overhead):.2f}x (max {max(overhead):.2f}x)"
        )
    print(
        f"warm against cold, whole batch: {warm1 / cold_s:.2f}x ({warm1:.0f} s vs {cold_s:.0f} s)"
    )
    print(f"throughput warm, 1 worker: {n / warm1 * 60:.1f}/min ({warm1:.1f} s for {n})")
    print(
        f"throughput warm, 2 workers: {n / warm2 * 60:.1f}/min ({warm2:.1f} s for {n}); "
        f"speed-up {warm1 / warm2:.2f}x"
    )


if __name__ == "__main__":
    main()

"""Validation speed on real pytest instances (../shared/data/validation).

Prints, per instance: cold (shared environment built) and warm (reused) seconds, the sandbox's
warm overhead against the same validation without it (same environments, same run; target
<= 1.15x), and the
warm validation's overhead over the two bare test runs it contains (target <= 1.5x), with
where the warm time goes (preparing the job's environment, the flakiness reruns — inside the
two runs' own pytest sessions — and the rest: worktree, patches); then throughput (instances
per minute, warm) with 1 and 2 workers.

    .venv/bin/python benchmarks/validate.py [--ids ID,ID,...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from spice_engine.validate.batch import validate_rows
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.gitwork import open_repository
from spice_engine.validate.local import LocalExecutor
from spice_engine.validate.sandbox import Sandbox, Unsandboxed

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "validation"
DEFAULT = "pytest-dev__pytest-5808,pytest-dev__pytest-5840,pytest-dev__pytest-8987,pytest-dev__pytest-9249"


def run(
    rows: list[dict[str, Any]], data: Path, workers: int, sandbox: Sandbox | None = None
) -> tuple[list[dict[str, Any]], float]:
    git_dirs = {"pytest-dev/pytest": open_repository(DATA / "pytest.bundle", data / "repos")}
    executor = LocalExecutor(data / "envs", sandbox or Bubblewrap())
    started = time.monotonic()
    out = validate_rows(rows, git_dirs, executor, data / "tmp", workers)
    return out, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ids", default=DEFAULT)
    ids = parser.parse_args().ids.split(",")
    rows = [json.loads(line) for line in (DATA / "instances.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r["instance_id"] in ids]
    with tempfile.TemporaryDirectory(prefix="spice-bench-") as tmp:
        data = Path(tmp)
        cold, _ = run(rows, data, 1)
        warm, warm1 = run(rows, data, 1)
        bare_warm, _ = run(rows, data, 1, Unsandboxed())
        _, warm2 = run(rows, data, 2)
    ratios, without_reruns = [], []
    print(
        f"{'instance':28} {'cold s':>7} {'env s':>6} {'warm s':>7} {'bare s':>7} {'overhead':>8}"
        f" | {'job env':>7} {'reruns':>6} {'other':>6}"
    )
    for c, w in zip(cold, warm, strict=True):
        cd, wd = c["spice"]["validation"]["durations"], w["spice"]["validation"]["durations"]
        # In-session reruns happen inside the before and after runs: their time is not "bare".
        reruns = wd.get("reruns", 0.0)
        in_session = w["spice"]["validation"]["reruns"] == "in_session"
        bare = wd["before"] + wd["after"] - (reruns if in_session else 0.0)
        other = wd["total"] - bare - reruns - wd["environment"]
        ratios.append(wd["total"] / bare)
        without_reruns.append((wd["total"] - reruns) / bare)
        print(
            f"{c['instance_id']:28} {cd['total']:7.1f} {cd['environment']:6.1f} "
            f"{wd['total']:7.1f} {bare:7.1f} {ratios[-1]:7.2f}x"
            f" | {wd['environment']:7.2f} {reruns:6.2f} {other:6.2f}"
        )
    print(f"median warm overhead over the two bare runs: {statistics.median(ratios):.2f}x")
    print(
        "  of which the flakiness reruns (in the runs' own pytest sessions): without them "
        f"{statistics.median(without_reruns):.2f}x"
    )
    sandboxed = [
        w["spice"]["validation"]["durations"]["total"]
        / u["spice"]["validation"]["durations"]["total"]
        for w, u in zip(warm, bare_warm, strict=True)
    ]
    same = sum(
        (w["FAIL_TO_PASS"], w["PASS_TO_PASS"]) == (u["FAIL_TO_PASS"], u["PASS_TO_PASS"])
        for w, u in zip(warm, bare_warm, strict=True)
    )
    print(
        f"sandbox overhead, warm, against the same runs unsandboxed: median "
        f"{statistics.median(sandboxed):.2f}x (max {max(sandboxed):.2f}x); "
        f"identical lists on {same}/{len(rows)}"
    )
    n = len(rows)
    print(f"throughput warm, 1 worker: {n / warm1 * 60:.1f}/min ({warm1:.1f} s for {n})")
    print(f"throughput warm, 2 workers: {n / warm2 * 60:.1f}/min ({warm2:.1f} s for {n})")


if __name__ == "__main__":
    main()

"""Validation beyond Python, per language: what it finds against the published lists, and what
it costs against the bare test command in the same environment, in the same run.

For each instance: validation cold (a new environments folder), validation warm (the same
folder again), the bare test command run once in that warm environment (the tree with both
patches, no validation around it), and validation by hand there: the bare command with the
test patch alone, then with the fix too, in one tree. Validation cannot do less than those two
runs, so warm / by hand is what our validation adds; warm / bare also counts the second run
it needs. It prints, per language, how many instances are
`valid`, how many agree with the published FAIL_TO_PASS (each published entry found at token
boundaries inside one of our ids, none of ours matching only a published PASS_TO_PASS entry),
the reasons of the rest, the median seconds cold and warm, the median ratios warm / bare and
warm / by hand, and instances per hour (warm). `floor` is the least warm / bare this machine
allows: validation's two runs need twice the processor seconds of the bare run (measured,
every process of it, from a cgroup of its own), spread at best over the cores; a test command that keeps two cores busy
alone cannot validate in less than about twice its time on a 2-core machine. `--table` writes every row as JSON lines.

    .venv/bin/python benchmarks/validate_langs.py [--per-repo 2 | --all] [--ids ...]

Instances: ../shared/data/langs/instances.jsonl with the repositories' bundles (or, for those
without, `--mirror owner/name=PATH`); skipped with a printed reason when absent. `--instances
instances_c_cpp.jsonl` measures C and C++ (jq's `modules/oniguruma` submodule from
`oniguruma.bundle`, as `--repo kkos/oniguruma=...` gives it to `spice validate`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from processor_meter import floor, processor_seconds  # beside this script

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "langs"
CORES = len(os.sched_getaffinity(0))
"""The cores this process may use (the sandboxed runs' too)."""
MIRRORS = Path("/work/.mirror")
SUBMODULE_BUNDLES = {"kkos/oniguruma": "oniguruma.bundle"}
"""Repositories the rows' submodules name, beside the rows' own bundles."""


def _git_dirs(rows: list[dict[str, Any]], cache: Path, given: dict[str, str]) -> dict[str, Path]:
    from spice_engine.validate.gitwork import open_repository

    found: dict[str, Path] = {}
    for repo in sorted({r["repo"] for r in rows}):
        bundle = DATA / f"{repo.split('/')[1]}.bundle"
        mirror = MIRRORS / repo.replace("/", "+") / "repo"
        path = Path(given[repo]) if repo in given else bundle if bundle.is_file() else mirror
        if path.exists():
            found[repo] = open_repository(path, cache)
        else:
            print(f"skipped {repo}: no bundle, mirror or --mirror for it", file=sys.stderr)
    for repo, name in SUBMODULE_BUNDLES.items():
        if (DATA / name).is_file() and repo not in found:
            found[repo] = open_repository(DATA / name, cache)
    return found


def published_agrees(ours: list[str], published: list[str], p2p: list[str]) -> bool:
    """The issue's rule: every published FAIL_TO_PASS entry inside one of our ids at token
    boundaries, and none of ours matching only a published PASS_TO_PASS entry."""

    def inside(entry: str, test: str) -> bool:
        pattern = r"(?<![A-Za-z0-9_])" + re.escape(entry) + r"(?![A-Za-z0-9_])"
        return re.search(pattern, test) is not None

    if not all(any(inside(p, t) for t in ours) for p in published):
        return False
    return not any(
        any(inside(p, t) for p in p2p) and not any(inside(p, t) for p in published) for t in ours
    )


def _job(
    row: dict[str, Any],
    git_dir: Path,
    language: str,
    envs: Path,
    given: dict[str, Path],
    **extra: Any,
) -> tuple[Any, Any]:
    """The instance's job in `language` and the executor that runs it, over `envs`."""
    from spice_engine.langs.executor import Executor
    from spice_engine.runs.session import Job
    from spice_engine.validate.bubblewrap import Bubblewrap

    job = Job(instance=row, git_dir=git_dir, language=language, submodules=given, **extra)
    return job, Executor(envs, Bubblewrap())


def _validate(
    row: dict[str, Any],
    git_dir: Path,
    language: str,
    envs: Path,
    scratch: Path,
    given: dict[str, Path],
) -> Any:
    from spice_engine.runs.validator import validate

    job, executor = _job(row, git_dir, language, envs, given, reruns=0, timeout_s=1800)
    return validate(job, executor, scratch)


def _timed(
    row: dict[str, Any],
    git_dir: Path,
    language: str,
    envs: Path,
    scratch: Path,
    given: dict[str, Path],
    by_hand: bool,
) -> tuple[float, float]:
    """Seconds of the bare test command in the warm environment, and the processor seconds it
    used (every core's, every process of it): one run with both patches,
    or (`by_hand`) validating by hand: a run with the test patch alone, then again once the
    fix is applied, in one tree (the second build reuses the first's, as validation's does).
    No validation does less than these two runs."""
    from spice_engine.runs.session import open_session
    from spice_engine.runs.validator import run_targets

    job, executor = _job(row, git_dir, language, envs, given)
    with open_session(job, executor, scratch) as session:
        session.tree.apply(job.test_patch)
        if not by_hand:
            session.tree.apply(job.patch)
        with processor_seconds() as used:
            started = time.monotonic()
            session.run("before" if by_hand else "bare", run_targets(job), 1800)
            if by_hand:
                session.tree.apply(job.patch)
                session.run("after", run_targets(job), 1800)
            return time.monotonic() - started, used()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-repo", type=int, default=2, help="instances of each repository")
    parser.add_argument("--all", action="store_true", help="every instance")
    parser.add_argument("--ids", default="", help="comma-separated instance ids, run in this order")
    parser.add_argument("--mirror", action="append", default=[], help="OWNER/NAME=PATH")
    parser.add_argument("--no-timing", action="store_true", help="cold runs only, no warm/bare")
    parser.add_argument("--table", type=Path, help="write each instance's row here (JSON lines)")
    parser.add_argument("--instances", default="instances.jsonl", help="a file of the data's")
    args = parser.parse_args()
    if not (DATA / args.instances).is_file():
        sys.exit(f"skipped: {DATA / args.instances} is absent (the development data)")
    from spice_engine.runs.planner import language_at

    rows = [json.loads(x) for x in (DATA / args.instances).read_text().splitlines()]
    if args.ids:
        order = {iid: n for n, iid in enumerate(args.ids.split(","))}  # in the order given
        rows = sorted(
            (r for r in rows if r["instance_id"] in order), key=lambda r: order[r["instance_id"]]
        )
    elif not args.all:
        seen: dict[str, int] = defaultdict(int)
        picked = []
        for r in rows:
            seen[r["repo"]] += 1
            if seen[r["repo"]] <= args.per_repo:
                picked.append(r)
        rows = picked
    work = Path(tempfile.mkdtemp(prefix="spice-langs-"))
    given = dict(m.split("=", 1) for m in args.mirror)
    git_dirs = _git_dirs(rows, work / "repos", given)
    table: list[dict[str, Any]] = []
    for row in rows:
        if row["repo"] not in git_dirs:
            continue
        git_dir = git_dirs[row["repo"]]
        language = language_at(git_dir, row["base_commit"])
        cold_envs = work / "envs-cold" / row["instance_id"]
        published = {k: row.pop(k) for k in ("FAIL_TO_PASS", "PASS_TO_PASS")}
        t0 = time.monotonic()
        cold = _validate(row, git_dir, language, cold_envs, work / "tmp", git_dirs)
        cold_s = time.monotonic() - t0
        warm_s = bare_s = hand_s = bare_cpu_s = None
        if not args.no_timing and cold.validation.status == "valid":
            t0 = time.monotonic()
            _validate(row, git_dir, language, cold_envs, work / "tmp", git_dirs)
            warm_s = time.monotonic() - t0
            where = (row, git_dir, language, cold_envs, work / "tmp", git_dirs)
            bare_s, bare_cpu_s = _timed(*where, by_hand=False)
            hand_s = _timed(*where, by_hand=True)[0]
        shutil.rmtree(cold_envs, ignore_errors=True)
        pub_f2p, pub_p2p = (json.loads(published[k]) for k in ("FAIL_TO_PASS", "PASS_TO_PASS"))
        agree = published_agrees(cold.fail_to_pass, pub_f2p, pub_p2p)
        line = {
            "instance_id": row["instance_id"],
            "language": language,
            "status": str(cold.validation.status),
            "agree": agree,
            "cold_s": round(cold_s, 1),
            "warm_s": None if warm_s is None else round(warm_s, 1),
            "bare_s": None if bare_s is None else round(bare_s, 1),
            "by_hand_s": None if hand_s is None else round(hand_s, 1),
            "bare_cpu_s": None if bare_cpu_s is None else round(bare_cpu_s, 1),
            "floor": None
            if not bare_s or bare_cpu_s is None
            else round(floor(bare_s, bare_cpu_s, CORES), 2),
            "fail_to_pass": len(cold.fail_to_pass),
            "published_fail_to_pass": len(pub_f2p),
            "detail": cold.validation.detail.splitlines()[0][:200]
            if cold.validation.detail
            else "",
        }
        table.append(line)
        print(json.dumps(line), flush=True)
        if args.table:
            with args.table.open("a") as out:
                out.write(json.dumps(line) + "\n")
    _report(table)
    shutil.rmtree(work, ignore_errors=True)


def _report(table: list[dict[str, Any]]) -> None:
    by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in table:
        by_language[line["language"]].append(line)
    print(
        f"\n{'language':12} {'n':>3} {'valid':>6} {'agree':>6} {'cold s':>7} {'warm s':>7} "
        f"{'warm/bare':>9} {'floor':>6} {'warm/hand':>9} {'inst/h':>7}"
    )
    for language, lines in sorted(by_language.items()):
        n = len(lines)
        valid = sum(x["status"] == "valid" for x in lines)
        agree = sum(x["agree"] for x in lines)
        cold = statistics.median(x["cold_s"] for x in lines)
        warm_runs = [x for x in lines if x["warm_s"]]
        warm = statistics.median(x["warm_s"] for x in warm_runs) if warm_runs else None
        ratio = (
            statistics.median(x["warm_s"] / x["bare_s"] for x in warm_runs if x["bare_s"])
            if warm_runs
            else None
        )
        floors = [x["floor"] for x in warm_runs if x.get("floor")]
        least = statistics.median(floors) if floors else None
        by_hand = [x["warm_s"] / x["by_hand_s"] for x in warm_runs if x.get("by_hand_s")]
        hand = statistics.median(by_hand) if by_hand else None
        per_hour = 3600 / warm if warm else None
        print(
            f"{language:12} {n:3d} {valid / n:6.0%} {agree / n:6.0%} {cold:7.1f} "
            f"{warm if warm is not None else float('nan'):7.1f} "
            f"{ratio if ratio is not None else float('nan'):9.2f} "
            f"{least if least is not None else float('nan'):6.2f} "
            f"{hand if hand is not None else float('nan'):9.2f} "
            f"{per_hour if per_hour is not None else float('nan'):7.0f}"
        )
        for x in lines:
            if x["status"] != "valid" or not x["agree"]:
                print(f"    {x['instance_id']}: {x['status']}, agree={x['agree']}: {x['detail']}")


if __name__ == "__main__":
    main()

"""Test strength on the real development instances (../shared/data/validation): the acceptance
self-check and the speed benchmark in one run.

On the same environments (planned as SWE-bench groups them, one per version): one validation
of each instance (its time is the yardstick: target strength <= 3x a warm validation), the
strength with the published lists, the strength with half the FAIL_TO_PASS tests removed (rounded up; the removed tests are no
longer judged, as if cut from the test patch), then the re-checks: every survivor and up to
`--recheck-killed` killed mutants applied on their own (base + gold + test patch + the
mutant's diff, a fresh worktree, the sandbox) and the judged tests run: a survivor must pass
every one that passes with the fix alone there, a killed mutant must fail one of those.

    .venv/bin/python benchmarks/test_strength.py [--ids ID,...] [--data DIR] [--out OUT.json]
    .venv/bin/python benchmarks/test_strength.py --held-out [--data DIR]

(From a git worktree whose venv is another checkout's, set `PYTHONPATH=.`: a script's imports
otherwise come from where the venv's editable install points, not from this checkout.)

`--held-out` measures, instead, the SWE-bench instances an outside study found under-tested
(`benchmarks/under_tested.json`, UTBoost) whose repository is among the bundles here: their rows
come from ../shared/data/swebench/instances.jsonl without test lists, so FAIL_TO_PASS and
PASS_TO_PASS are the ones our validation computes. Under-tested means the measure should flag
them: a survivor or a part of the fix no test needs.

Prints one line per instance and a table at the end; exits 2 when the data or
the sandbox is absent (saying why).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

import judged  # beside this script

from spice_engine.langs.executor import Executor
from spice_engine.langs.python_interpreters import find_pythons
from spice_engine.langs.python_versions import plan_groups
from spice_engine.redaction import redacted_excerpt
from spice_engine.runs.validate_rows import validate_rows
from spice_engine.strength.batch import strength_rows
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.recheck import verdicts_hold
from spice_engine.strength.result import MutantOutcome, TestStrength
from spice_engine.validate import gitwork
from spice_engine.validate.bubblewrap import Bubblewrap
from spice_engine.validate.executor import EnvBuildError
from spice_engine.validate.gitwork import open_repository

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "validation"
SWEBENCH = ROOT.parent / "shared" / "data" / "swebench" / "instances.jsonl"
UNDER_TESTED = Path(__file__).with_name("under_tested.json")
SOURCES = {
    "pytest-dev/pytest": ("instances.jsonl", "pytest.bundle"),
    "sphinx-doc/sphinx": ("instances_sphinx.jsonl", "sphinx.bundle"),
    "psf/requests": ("instances_requests.jsonl", "requests.bundle"),
}


def halved(row: dict[str, Any]) -> dict[str, Any]:
    """The row with the second half (rounded up) of its FAIL_TO_PASS removed."""
    f2p = sorted(json.loads(row["FAIL_TO_PASS"]))
    return row | {"FAIL_TO_PASS": json.dumps(f2p[: len(f2p) // 2])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--ids",
        default="",
        help="instance ids (default: every pytest one); one with no published lists here is "
        "taken from SWE-bench's instances and judged by the lists our validation computes",
    )
    parser.add_argument("--data", type=Path, default=None, help="data dir (environments)")
    parser.add_argument("--out", type=Path, default=None, help="JSON of every figure")
    parser.add_argument("--max-mutants", type=int, default=30)
    parser.add_argument("--budget", type=float, default=600.0)
    parser.add_argument(
        "--times-validation",
        type=float,
        default=StrengthConfig().times_validation,
        help="budget at most this many times each instance's validation (its test runs)",
    )
    parser.add_argument("--recheck-killed", type=int, default=3)
    parser.add_argument("--held-out", action="store_true", help="the under-tested instances")
    parser.add_argument("--no-half", action="store_true", help="skip the halved-lists run")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: no validation data at {DATA} (../shared is absent)")
        return 2
    box = Bubblewrap()
    if why := box.problem():
        print(f"skipped: no sandbox: {why}")
        return 2
    data = args.data or Path(tempfile.mkdtemp(prefix="spice-strength-"))
    wanted = [i for i in args.ids.split(",") if i]
    rows, git_dirs = [], {}
    for repo, (listing, bundle) in SOURCES.items():
        found = _held_out(repo) if args.held_out else _development(listing, repo, wanted)
        if found:
            git_dirs[repo] = open_repository(DATA / bundle, data / "repos")
            rows += [r for r in found if _has_commit(git_dirs[repo], r["base_commit"])]
    if not rows:
        print("skipped: none of the chosen instances has its repository here")
        return 2
    executor = Executor(data / "envs", box)
    pythons = sorted(find_pythons())
    config = StrengthConfig(
        max_mutants=args.max_mutants, budget_s=args.budget, times_validation=args.times_validation
    )
    # Planned together, as SWE-bench groups them: one environment per version, shared.
    groups = plan_groups(rows, git_dirs, pythons)
    scratch = data / "tmp"
    validated = {r["instance_id"]: r for r in validate_rows(rows, git_dirs, executor, scratch)}
    # Without published lists (held out), judged by the lists our validation computed.
    rows = [r if "FAIL_TO_PASS" in r else validated[r["instance_id"]] for r in rows]
    # Each measured with its own validation beside it: its budget is a multiple of that.
    rows = [r | {"spice": validated[r["instance_id"]]["spice"]} for r in rows]
    fulls = {r["instance_id"]: r for r in strength_rows(rows, git_dirs, executor, scratch, config)}
    halves = (
        [{"spice": {"test_strength": {"score": None, "untested": []}}} for _ in rows]
        if args.no_half
        else strength_rows([halved(r) for r in rows], git_dirs, executor, scratch, config)
    )
    table, strengths = [], {}
    for row, half in zip(rows, halves, strict=True):
        iid = row["instance_id"]
        valid, full = validated[iid], fulls[iid]
        v, s = valid["spice"]["validation"], full["spice"]["test_strength"]
        h = half["spice"]["test_strength"]
        strengths[iid] = s
        line: dict[str, Any] = {
            "id": iid,
            "status": s["status"],
            "detail": redacted_excerpt(s["detail"], head=200, cut_edges=True),
            "f2p": len(json.loads(row["FAIL_TO_PASS"])),
            "tried": s["mutants_tried"],
            "killed": s["mutants_killed"],
            "score": s["score"],
            "score_half": h["score"],
            "untested": len(s["untested"]),
            "untested_half": len(h["untested"]),
            "validation": v["status"],
        }
        survivors = [m for m in s["mutants"] if m["verdict"] == "survived"]
        killed = [m for m in s["mutants"] if m["verdict"] == "killed"][: args.recheck_killed]
        verdicts = [m["verdict"] for m in s["mutants"]]
        line["equivalent"], line["not_run"] = verdicts.count("equivalent"), s["not_run"]
        line["skipped"] = "; ".join(s.get("skipped", []))
        group = groups.get(iid)
        if group is not None and group.recipe is not None and s["status"] == "measured":
            git_dir = git_dirs[row["repo"]]
            # Judged as the engine judges: by the tests that pass with the fix alone here.
            try:
                fixed, holds = verdicts_hold(
                    executor, git_dir, row, group, survivors + killed, data / "tmp"
                )
                line["fixed_alone"] = fixed
                if not fixed:
                    raise EnvBuildError("the fix alone passed none of the judged tests here")
                line["survivors_pass"] = sum(holds[: len(survivors)])
                line["killed_fail"] = sum(holds[len(survivors) :])
            except EnvBuildError as exc:  # the sandbox's network set-up can fail under load
                line["recheck_error"] = redacted_excerpt(str(exc), head=200)
        line["survivors"], line["killed_rechecked"] = len(survivors), len(killed)
        # What a reviewer is told: a wrong fix the tests accept, or a part no test needs.
        line["flagged"] = bool(survivors or s["untested"]) if s["status"] == "measured" else None
        # A warm validation: this one's time less its environment, plus a warm preparation.
        warm = v["durations"]["total"] - v["durations"].get("environment", 0.0)
        warm += s["durations"].get("environment", 0.0)
        line["validation_s"] = round(warm, 1)
        line["strength_s"] = s["durations"]["total"]
        line["ratio"] = round(s["durations"]["total"] / warm, 2) if warm else None
        mutant_s = s["durations"].get("mutants", 0.0) + s["durations"].get("confirm", 0.0)
        line["mutants_per_s"] = round(s["mutants_tried"] / mutant_s, 2) if mutant_s else None
        # Choosing mutants (parsing, proofs, text edits): its share of the whole measurement.
        line["choose_s"] = s["durations"].get("choose")
        total = s["durations"].get("total") or 0.0
        line["choose_share"] = (
            round(line["choose_s"] / total, 4) if line["choose_s"] and total else None
        )
        # The differential runs (a part of the mutant session): their share of the measurement.
        line["differential_share"] = (
            round(s["durations"].get("differential", 0.0) / total, 4) if total else None
        )
        typed = [MutantOutcome.model_validate(m) for m in survivors]
        line["shown"] = sum(m.shown for m in typed)
        line["untested_lines"] = sum(m.untested_line for m in typed)
        line["unconfirmed"] = len(typed) - line["shown"] - line["untested_lines"]
        top = TestStrength.model_validate(s).headline
        line["headline"] = f"{top.change} ({top.path}:{top.line})" if top else ""
        table.append(line)
        print(json.dumps(line), flush=True)
        if args.out:  # every figure behind the line: the mutants, their diffs, the parts
            with args.out.with_suffix(".rows.jsonl").open("a") as rows_out:
                rows_out.write(json.dumps({"id": iid, "full": s, "half": h}) + "\n")
    _report(table)
    judged.report({t["id"]: TestStrength.model_validate(strengths[t["id"]]) for t in table})
    if args.out:
        args.out.write_text(json.dumps(table, indent=1))
    return 0


def _development(listing: str, repo: str, wanted: list[str]) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in (DATA / listing).read_text().splitlines()]
    rows = [
        r for r in found if r["instance_id"] in wanted or (not wanted and repo.startswith("pytest"))
    ]
    listed = {r["instance_id"] for r in found}
    return rows + _unlisted(repo, {i for i in wanted if i not in listed})


def _unlisted(repo: str, wanted: set[str]) -> list[dict[str, Any]]:
    """SWE-bench instances of `repo` with no published lists here: judged by the lists our
    validation computes (a stale or partial copy of theirs would be judged instead)."""
    if not wanted or not SWEBENCH.is_file():
        return []
    found = [json.loads(line) for line in SWEBENCH.read_text().splitlines()]
    rows = [r for r in found if r["instance_id"] in wanted and r["repo"] == repo]
    return [{k: v for k, v in r.items() if k not in ("FAIL_TO_PASS", "PASS_TO_PASS")} for r in rows]


def _held_out(repo: str) -> list[dict[str, Any]]:
    return _unlisted(repo, set(json.loads(UNDER_TESTED.read_text())["instances"]))


def _has_commit(git_dir: Path, sha: str) -> bool:
    if gitwork.has_commit(git_dir, sha):
        return True
    print(f"skipped: {sha[:12]} is not in the repository bundle", flush=True)
    return False


def _report(table: list[dict[str, Any]]) -> None:
    cols = ["id", "status", "f2p", "tried", "killed", "score", "score_half", "untested",
            "fixed_alone", "survivors", "shown", "untested_lines", "unconfirmed", "survivors_pass",
            "killed_rechecked", "killed_fail",
            "flagged", "equivalent", "not_run", "validation_s", "strength_s", "ratio",
            "mutants_per_s", "choose_s", "choose_share", "differential_share",
            "skipped", "headline"]  # fmt: skip
    print("\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for line in table:
        print("| " + " | ".join(str(line.get(c, "")) for c in cols) + " |")
    scored = [t for t in table if t["score"] is not None and t["score_half"] is not None]
    raised = sum(t["score_half"] > t["score"] for t in scored)
    lowered = sum(t["score_half"] < t["score"] for t in scored)
    print(f"\nhalf the FAIL_TO_PASS removed: score raised on {raised}, lowered on {lowered} "
          f"of {len(scored)} scored instances")  # fmt: skip
    measured = [t for t in table if t["flagged"] is not None]
    flagged = sum(t["flagged"] for t in measured)
    print(f"flagged (a survivor or an untested part): {flagged} of {len(measured)} measured")
    # Costs are those of runs that measured: one stopped at its baseline (tests that need the
    # network, say) ran no mutant, and its selection's share of so short a run says nothing.
    stopped = [t["id"] for t in table if t["status"] != "measured"]
    if stopped:
        print(f"cost figures leave out {len(stopped)} not measured: {', '.join(stopped)}")
    table = [t for t in table if t["status"] == "measured"]
    # The baseline is this run's own warm validation of each instance (same machine, same load).
    ratios = sorted(t["ratio"] for t in table if t.get("ratio"))
    if ratios:
        print(f"strength / one warm validation (this run): median {median(ratios):.2f}, "
              f"worst {ratios[-1]} (target <= 3, <= 6)")  # fmt: skip
    speeds = [t["mutants_per_s"] for t in table if t.get("mutants_per_s")]
    if speeds:
        print(f"mutants judged per second: median {median(speeds):.2f}, min {min(speeds):.2f}")
    shares = [t["choose_share"] for t in table if t.get("choose_share") is not None]
    if shares:
        chose = sum(t["choose_s"] or 0.0 for t in table)
        print(f"time in mutant selection: {chose:.1f} s in all; share of a run: median "
              f"{median(shares):.2%}, worst {max(shares):.2%} (target <= 5%)")  # fmt: skip
    diffs = [t["differential_share"] for t in table if t.get("differential_share") is not None]
    if diffs:
        print(f"time in differential runs, share of a run: median {median(diffs):.2%}, "
              f"worst {max(diffs):.2%}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())

"""What the one-way door costs: warm validation with this checkout's engine against a baseline
checkout's (e.g. the commit before the door), alternating, in the same run.

Each round validates the same instances with `spice validate` (bubblewrap, environments already
built: warm) once with each engine, the baseline's code put first on `PYTHONPATH`. It prints
each engine's median seconds per round and the median of the paired ratios (this / baseline).
Instances: the tiny calc project always; with ../shared beside the checkout, also one pytest
instance of the development data.

    git worktree add --detach ../baseline <commit>
    .venv/bin/python benchmarks/door_overhead.py --baseline ../baseline [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data" / "validation"
PYTEST_ID = "pytest-dev__pytest-5692"


def _instances(where: Path) -> list[tuple[Path, list[str]]]:
    """(instances file, --repo arguments) for each instance set measured."""
    from tests.strength_support import FIX, STRONG, calc_instance

    repo, row = calc_instance(where, STRONG, FIX)
    calc = where / "calc.jsonl"
    calc.write_text(json.dumps(row) + "\n")
    found = [(calc, ["--repo", f"octo/calc={repo}"])]
    bundle = SHARED / "pytest.bundle"
    if bundle.is_file():
        rows = [json.loads(x) for x in (SHARED / "instances.jsonl").read_text().splitlines()]
        chosen = [r for r in rows if r["instance_id"] == PYTEST_ID][:1]
        for r in chosen:
            for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
                r.pop(key, None)
        if chosen:
            path = where / "pytest.jsonl"
            path.write_text(json.dumps(chosen[0]) + "\n")
            found.append((path, ["--repo", f"pytest-dev/pytest={bundle}"]))
    else:
        print(f"no {bundle}: the calc instance only", file=sys.stderr)
    return found


def _validate(src: Path, data: Path, instances: Path, repo: list[str], out: Path) -> float:
    out.unlink(missing_ok=True)
    env = os.environ | {"PYTHONPATH": str(src), "SPICE_DATA_DIR": str(data)}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    started = time.monotonic()
    cli = [sys.executable, "-c", "from app.cli.main import run; run()"]
    done = subprocess.run(
        [*cli, "validate", str(instances), "--out", str(out), *repo],
        env=env,
        cwd=src,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    if not out.is_file():
        raise SystemExit(f"{src}: no output ({done.returncode}): {done.stderr[-2000:]}")
    statuses = [
        json.loads(x)["spice"]["validation"]["status"] for x in out.read_text().splitlines()
    ]
    if done.returncode not in (0, 3) or statuses != ["valid"]:
        raise SystemExit(f"{src}: {statuses} {done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    engines = {"door": ROOT, "baseline": args.baseline.resolve()}
    with tempfile.TemporaryDirectory(prefix="spice-door-bench-") as tmp:
        where = Path(tmp)
        for instances, repo in _instances(where):
            times: dict[str, list[float]] = {name: [] for name in engines}
            for name, src in engines.items():  # warm-up: the environments are built here
                _validate(src, where / f"data-{name}", instances, repo, where / "out.jsonl")
            for _ in range(args.rounds):
                for name, src in engines.items():
                    data = where / f"data-{name}"
                    times[name].append(_validate(src, data, instances, repo, where / "out.jsonl"))
            ratios = [a / b for a, b in zip(times["door"], times["baseline"], strict=True)]
            print(
                f"{instances.stem}: door {statistics.median(times['door']):.2f} s, "
                f"baseline {statistics.median(times['baseline']):.2f} s (medians of "
                f"{args.rounds}); door/baseline median {statistics.median(ratios):.3f} "
                f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
            )


if __name__ == "__main__":
    main()

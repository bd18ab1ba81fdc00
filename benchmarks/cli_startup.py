"""`spice --help` and `spice <command> --help` against `python -c "import typer, pydantic"`,
measured side by side (interleaved runs, medians); target: within 3x of the baseline.

    .venv/bin/python benchmarks/cli_startup.py --runs 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPICE = str(Path(sys.executable).parent / "spice")
BASELINE = [sys.executable, "-c", "import typer, pydantic"]
COMMANDS = [
    "label-issue",
    "label-pr",
    "label-instance",
    "harvest",
    "eval",
    "worker",
    "serve",
    "export",
]


def wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    targets = {"baseline": BASELINE, "spice --help": [SPICE, "--help"]}
    targets |= {f"spice {c} --help": [SPICE, c, "--help"] for c in COMMANDS}
    times: dict[str, list[float]] = {name: [] for name in targets}
    for _ in range(args.runs):  # interleaved: drift on a noisy host hits every target alike
        for name, argv in targets.items():
            times[name].append(wall(argv))
    base = statistics.median(times["baseline"])
    report = {
        name: {
            "median_s": round(statistics.median(t), 3),
            "vs_baseline": round(statistics.median(t) / base, 2),
        }
        for name, t in times.items()
    }
    worst = max(r["vs_baseline"] for n, r in report.items() if n != "baseline")
    print(
        json.dumps(
            {"runs": args.runs, "results": report, "worst_ratio": worst, "within_3x": worst <= 3},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

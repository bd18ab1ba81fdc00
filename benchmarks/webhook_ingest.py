"""Webhook ingest benchmark: `spice serve` at GitHub-like rates, a bare 202 endpoint as baseline.

Both servers run under gunicorn with the same uvicorn workers on 127.0.0.1. Signed 10-30 KB
deliveries shaped like /work/shared/data/webhooks are offered open-loop at fixed rates
(latency is measured from each request's scheduled send time, so a slow server cannot hide
behind a slow client), bare and app interleaved for several rounds. Targets: p99 < 50 ms at
300 deliveries/s offered; afterwards every accepted delivery id is looked up in the store:
each must be there exactly once, and redelivering a sample must create nothing new.

    .venv/bin/python benchmarks/webhook_ingest.py --rates 100,300 --duration 10
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.ingest_load import (  # noqa: E402
    SECRET,
    Delivery,
    Phase,
    build_deliveries,
    open_loop,
    redeliver,
)

BARE_POOL = 4000


def bare_app() -> Starlette:
    """The ceiling: read the body, answer 202, nothing else."""

    async def webhook(request: Request) -> JSONResponse:
        await request.body()
        return JSONResponse({"status": "queued"}, status_code=202)

    return Starlette(routes=[Route("/webhook", webhook, methods=["POST"])])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            urllib.request.urlopen(
                urllib.request.Request(url, data=b"{}", method="POST"), timeout=1
            )
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer means it is serving
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} not ready after {timeout}s")


def start_servers(workers: int, data_dir: Path) -> tuple[list[subprocess.Popen[bytes]], str, str]:
    env = os.environ | {
        "SPICE_DATA_DIR": str(data_dir),
        "SPICE_WEBHOOK_SECRET": SECRET,
        "SPICE_LOG_LEVEL": "INFO",  # as in production: one line per delivery
        "PYTHONPATH": str(ROOT),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.pop("SPICE_DATABASE_URL", None)
    env.pop("SPICE_REDIS_URL", None)
    app_port, bare_port = free_port(), free_port()
    spice = str(Path(sys.executable).parent / "spice")
    app = subprocess.Popen(
        [spice, "serve", "--host", "127.0.0.1", "--port", str(app_port), "--workers", str(workers)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(data_dir / "serve.log", "wb"),  # noqa: SIM115
    )
    bare = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            "python:app.web.gunicorn_conf",
            "--bind",
            f"127.0.0.1:{bare_port}",
            "--workers",
            str(workers),
            "benchmarks.webhook_ingest:bare_app()",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(data_dir / "bare.log", "wb"),  # noqa: SIM115
    )
    app_url = f"http://127.0.0.1:{app_port}/webhook"
    bare_url = f"http://127.0.0.1:{bare_port}/webhook"
    wait_ready(app_url, app)
    wait_ready(bare_url, bare)
    return [app, bare], app_url, bare_url


def verify_store(data_dir: Path, accepted: list[str]) -> dict[str, Any]:
    """Every accepted delivery stored exactly once; nothing stored that was not accepted."""
    with sqlite3.connect(data_dir / "spice.db") as conn:
        rows = conn.execute("SELECT delivery_id FROM deliveries").fetchall()
        jobs = conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
    stored = [row[0] for row in rows]
    stored_set = set(stored)
    accepted_set = set(accepted)
    return {
        "accepted": len(accepted),
        "accepted_unique": len(accepted_set),
        "stored": len(stored),
        "lost": len(accepted_set - stored_set),
        "duplicated": len(stored) - len(stored_set),
        "stored_but_not_accepted": len(stored_set - accepted_set),
        "jobs": jobs,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rates = [float(r) for r in args.rates.split(",") if r]
    per_rate = [int(rate * args.duration) for rate in rates]
    total = args.rounds * sum(per_rate) + BARE_POOL
    print(f"building {total} signed deliveries ...", file=sys.stderr)
    pool = iter(build_deliveries(total, args.seed))
    # The bare endpoint stores nothing: it may see the same deliveries again and again.
    bare_pool = [next(pool) for _ in range(BARE_POOL)]
    data_dir = Path(tempfile.mkdtemp(prefix="spice-ingest-"))
    processes, app_url, bare_url = start_servers(args.workers, data_dir)
    phases: list[Phase] = []
    accepted: list[str] = []
    sent_to_app: list[Delivery] = []
    try:
        # Rounds interleave the two targets: the host's speed drifts within minutes.
        for round_ in range(1, args.rounds + 1):
            for rate, count in zip(rates, per_rate, strict=True):
                for target, url in (("bare", bare_url), ("app", app_url)):
                    batch = (
                        list(itertools.islice(itertools.cycle(bare_pool), count))
                        if target == "bare"
                        else [next(pool) for _ in range(count)]
                    )
                    phase = Phase(f"open-loop {rate:g}/s round {round_}", target, rate)
                    print(f"{phase.name} -> {target}", file=sys.stderr)
                    await open_loop(url, batch, rate, phase)
                    phases.append(phase)
                    if target == "app":
                        accepted += phase.accepted
                        sent_to_app += batch
                    await asyncio.sleep(1)
        sample = random.Random(args.seed).sample(sent_to_app, min(200, len(sent_to_app)))
        redelivery = await redeliver(app_url, sample)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
    summaries = [phase.summary() for phase in phases]
    store = verify_store(data_dir, accepted)
    return {
        "workers": args.workers,
        "cpus": os.cpu_count(),
        "payload_bytes": "10000-30000",
        "phases": summaries,
        "store": store,
        "redelivery_statuses": {str(k): v for k, v in redelivery.items()},
        "acceptance": acceptance(summaries, store, redelivery),
        "data_dir": str(data_dir),
    }


def acceptance(
    summaries: list[dict[str, Any]], store: dict[str, Any], redelivery: dict[int, int]
) -> dict[str, Any]:
    """The targets: p99 < 50 ms at 300/s offered (worst round), nothing lost or doubled.
    The bare endpoint's p99 in the same rounds is the baseline the ratio is taken to."""
    at_300 = [s for s in summaries if s["offered_per_s"] == 300.0]
    app_p99 = max((s["p99_ms"] for s in at_300 if s["target"] == "app"), default=None)
    bare_p99 = max((s["p99_ms"] for s in at_300 if s["target"] == "bare"), default=None)
    return {
        "app_p99_at_300_ms": app_p99,
        "bare_p99_at_300_ms": bare_p99,
        "app_vs_bare_p99_at_300": round(app_p99 / bare_p99, 2) if app_p99 and bare_p99 else None,
        "p99_at_300_under_50ms": app_p99 is not None and app_p99 < 50,
        "zero_lost_or_duplicated": store["lost"] == 0 and store["duplicated"] == 0,
        "every_accepted_delivery_has_a_job": store["jobs"] > 0,
        "redeliveries_stored_nothing_new": set(redelivery) <= {200},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="100,300", help="offered rates, deliveries/s")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per offered rate")
    parser.add_argument("--rounds", type=int, default=2, help="bare/app rounds per rate")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (both servers)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="write the JSON report here too")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()

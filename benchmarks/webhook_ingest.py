"""Webhook ingest benchmark: `spice serve` vs a bare Starlette 202 endpoint, same run, same host.

Both servers run under gunicorn with the same uvicorn workers on 127.0.0.1. Signed 10-30 KB
deliveries shaped like /work/shared/data/webhooks are offered open-loop at fixed rates
(latency is measured from each request's scheduled send time, so a slow server cannot hide
behind a slow client), then closed-loop at saturation. Afterwards every accepted delivery id
is looked up in the store: each must be there exactly once, and redelivering a sample must
create nothing new.

    .venv/bin/python benchmarks/webhook_ingest.py --rates 100,300 --duration 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.web.signature import sign  # noqa: E402

WEBHOOKS = ROOT.parent / "shared" / "data" / "webhooks"
SECRET = "benchmark-secret"
SHAPES = [("issues", "opened"), ("pull_request", "opened"), ("issue_comment", "created")]
WORDS = [
    "the",
    "parser",
    "fails",
    "when",
    "a",
    "nested",
    "list",
    "follows",
    "a",
    "heading",
    "and",
    "the",
    "fix",
    "keeps",
    "order",
]


def bare_app() -> Starlette:
    """The ceiling: read the body, answer 202, nothing else."""

    async def webhook(request: Request) -> JSONResponse:
        await request.body()
        return JSONResponse({"status": "queued"}, status_code=202)

    return Starlette(routes=[Route("/webhook", webhook, methods=["POST"])])


@dataclass(frozen=True)
class Delivery:
    delivery_id: str
    event: str
    body: bytes
    headers: dict[str, str]


def build_deliveries(count: int, seed: int) -> list[Delivery]:
    """Signed deliveries of 10-30 KB: real payload shapes, bodies padded with prose."""
    rng = random.Random(seed)
    templates = {
        shape: json.loads((WEBHOOKS / shape[0] / f"{shape[1]}.payload.json").read_text())
        for shape in SHAPES
    }
    out = []
    for i in range(count):
        event, action = SHAPES[i % len(SHAPES)]
        payload = json.loads(json.dumps(templates[(event, action)]))
        target_size = rng.randint(10_000, 30_000)
        number = 10_000 + i  # distinct issues: every delivery is a new job (worst case)
        room = max(0, target_size - len(json.dumps(payload)))
        text = " ".join(rng.choice(WORDS) for _ in range(room // 5))[:room]
        if event == "pull_request":
            payload["number"] = number
            payload["pull_request"]["number"] = number
            payload["pull_request"]["body"] = text
        else:
            payload["issue"]["number"] = number
            payload["issue"]["body"] = text
            if event == "issue_comment":
                payload["comment"]["id"] = number
        body = json.dumps(payload).encode()
        delivery_id = str(uuid.uuid4())
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": delivery_id,
            "X-Hub-Signature-256": sign(SECRET.encode(), body),
            "User-Agent": "GitHub-Hookshot/benchmark",
        }
        out.append(Delivery(delivery_id, event, body, headers))
    return out


@dataclass
class Phase:
    name: str
    target: str
    offered_rate: float | None
    latencies_ms: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    errors: int = 0
    elapsed_s: float = 0.0
    accepted: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)

        def pct(p: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))], 2) if lat else None

        done = len(lat)
        return {
            "phase": self.name,
            "target": self.target,
            "offered_per_s": self.offered_rate,
            "requests": done + self.errors,
            "throughput_per_s": round(done / self.elapsed_s, 1) if self.elapsed_s else None,
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "max_ms": round(lat[-1], 2) if lat else None,
            "mean_ms": round(statistics.fmean(lat), 2) if lat else None,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "client_errors": self.errors,
        }


async def _send(
    session: aiohttp.ClientSession, url: str, delivery: Delivery, phase: Phase, start: float
) -> None:
    try:
        async with session.post(url, data=delivery.body, headers=delivery.headers) as response:
            await response.read()
            status = response.status
    except (aiohttp.ClientError, TimeoutError):
        phase.errors += 1
        return
    phase.latencies_ms.append((time.perf_counter() - start) * 1000)
    phase.statuses[status] = phase.statuses.get(status, 0) + 1
    if status == 202:
        phase.accepted.append(delivery.delivery_id)


def _session(concurrency: int) -> aiohttp.ClientSession:
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=10))


async def open_loop(url: str, deliveries: list[Delivery], rate: float, phase: Phase) -> None:
    """Send deliveries[i] at t0 + i/rate whatever the server does (no coordinated omission)."""
    async with _session(256) as session:
        await _warm(session, url)
        tasks = []
        t0 = time.perf_counter() + 0.05
        for i, delivery in enumerate(deliveries):
            scheduled = t0 + i / rate
            delay = scheduled - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(_send(session, url, delivery, phase, scheduled)))
        await asyncio.gather(*tasks)
        phase.elapsed_s = time.perf_counter() - t0


async def closed_loop(
    url: str, deliveries: list[Delivery], concurrency: int, seconds: float, phase: Phase
) -> None:
    """`concurrency` clients back to back for `seconds` (or until deliveries run out)."""
    async with _session(concurrency) as session:
        await _warm(session, url)
        feed = iter(deliveries)
        deadline = time.perf_counter() + seconds
        t0 = time.perf_counter()

        async def client() -> None:
            for delivery in feed:
                if time.perf_counter() > deadline:
                    return
                await _send(session, url, delivery, phase, time.perf_counter())

        await asyncio.gather(*(client() for _ in range(concurrency)))
        phase.elapsed_s = time.perf_counter() - t0


async def _warm(session: aiohttp.ClientSession, url: str) -> None:
    """Open some keep-alive connections first (unsigned: the app answers 401, stores nothing)."""

    async def one() -> None:
        async with session.post(url, data=b"{}", headers={"X-GitHub-Event": "ping"}) as r:
            await r.read()

    await asyncio.gather(*(one() for _ in range(8)), return_exceptions=True)


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


async def redeliver(url: str, deliveries: list[Delivery]) -> dict[int, int]:
    """GitHub's "Redeliver": same id, same body. Must be answered, and stored nothing new."""
    statuses: dict[int, int] = {}
    async with _session(16) as session:
        for delivery in deliveries:
            async with session.post(url, data=delivery.body, headers=delivery.headers) as r:
                await r.read()
                statuses[r.status] = statuses.get(r.status, 0) + 1
    return statuses


async def run(args: argparse.Namespace) -> dict[str, Any]:
    rates = [float(r) for r in args.rates.split(",") if r]
    per_rate = [int(rate * args.duration) for rate in rates]
    saturation_cap = args.saturation_count
    total = 2 * (sum(per_rate) + saturation_cap)
    print(f"building {total} signed deliveries ...", file=sys.stderr)
    pool = iter(build_deliveries(total, args.seed))
    data_dir = Path(tempfile.mkdtemp(prefix="spice-ingest-"))
    processes, app_url, bare_url = start_servers(args.workers, data_dir)
    phases: list[Phase] = []
    accepted: list[str] = []
    sent_to_app: list[Delivery] = []
    try:
        for rate, count in zip(rates, per_rate, strict=True):
            for target, url in (("bare", bare_url), ("app", app_url)):
                batch = [next(pool) for _ in range(count)]
                phase = Phase(f"open-loop {rate:g}/s", target, rate)
                print(f"{phase.name} -> {target}", file=sys.stderr)
                await open_loop(url, batch, rate, phase)
                phases.append(phase)
                if target == "app":
                    accepted += phase.accepted
                    sent_to_app += batch
                await asyncio.sleep(1)
        for target, url in (("bare", bare_url), ("app", app_url)):
            batch = [next(pool) for _ in range(saturation_cap)]
            phase = Phase(f"saturation c={args.concurrency}", target, None)
            print(f"{phase.name} -> {target}", file=sys.stderr)
            await closed_loop(url, batch, args.concurrency, args.saturation_seconds, phase)
            phases.append(phase)
            if target == "app":
                accepted += phase.accepted
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
    bare_max = max(s["throughput_per_s"] for s in summaries if s["target"] == "bare")
    app_max = max(s["throughput_per_s"] for s in summaries if s["target"] == "app")
    at_300 = next(
        (s for s in summaries if s["target"] == "app" and s["offered_per_s"] == 300.0), None
    )
    acceptance = {
        "p99_at_300_ms": at_300["p99_ms"] if at_300 else None,
        "p99_at_300_under_50ms": bool(at_300 and at_300["p99_ms"] < 50),
        "app_vs_bare_max_throughput": round(app_max / bare_max, 3),
        "throughput_at_least_half_of_bare": app_max >= 0.5 * bare_max,
        "zero_lost_or_duplicated": store["lost"] == 0 and store["duplicated"] == 0,
        "redeliveries_stored_nothing_new": set(redelivery) <= {200},
    }
    return {
        "workers": args.workers,
        "cpus": os.cpu_count(),
        "payload_bytes": "10000-30000",
        "phases": summaries,
        "store": store,
        "redelivery_statuses": {str(k): v for k, v in redelivery.items()},
        "acceptance": acceptance,
        "data_dir": str(data_dir),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="100,300", help="offered rates, deliveries/s")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per offered rate")
    parser.add_argument("--saturation-seconds", type=float, default=8.0)
    parser.add_argument(
        "--saturation-count", type=int, default=10_000, help="deliveries per saturation phase"
    )
    parser.add_argument("--concurrency", type=int, default=32, help="clients at saturation")
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

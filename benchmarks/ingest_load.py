"""Load generation for the ingest benchmark: signed deliveries, open-loop clients."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from app.web.signature import sign

ROOT = Path(__file__).resolve().parents[1]
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
        text = " ".join(rng.choices(WORDS, k=room // 5))[:room]
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


async def _warm(session: aiohttp.ClientSession, url: str) -> None:
    """Open some keep-alive connections first (unsigned: the app answers 401, stores nothing)."""

    async def one() -> None:
        async with session.post(url, data=b"{}", headers={"X-GitHub-Event": "ping"}) as r:
            await r.read()

    await asyncio.gather(*(one() for _ in range(8)), return_exceptions=True)


async def redeliver(url: str, deliveries: list[Delivery]) -> dict[int, int]:
    """GitHub's "Redeliver": same id, same body. Must be answered, and stored nothing new."""
    statuses: dict[int, int] = {}
    async with _session(16) as session:
        for delivery in deliveries:
            async with session.post(url, data=delivery.body, headers=delivery.headers) as r:
                await r.read()
                statuses[r.status] = statuses.get(r.status, 0) + 1
    return statuses

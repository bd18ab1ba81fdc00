"""Harvest throughput at 1, 4 and 16 queue workers against slow fakes; ratio to the ideal.

The fake GitHub answers every request after a fixed 50 ms and the fake model after a fixed 1 s,
both in a separate process (as remote services are). Each run seeds `--prs-per-worker` PRs per
worker (the same mix of linked/unlinked/with-tests/... scenarios), enqueues every merged PR on
a huey queue, and times `n` worker threads draining it. The ideal at `n` workers is `n` times
the one-worker throughput; acceptance: 16 workers reach >= 80% of it, with no duplicate
instance.

    .venv/bin/python benchmarks/harvest_scale.py [--workers 1 4 16] [--prs-per-worker 16]
        [--redis-url redis://127.0.0.1:6379/0]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/spice_bench]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

GITHUB_LATENCY_S = 0.05
MODEL_LATENCY_S = 1.0


def _slow_model(request: dict[str, Any]) -> Any:
    from tests.fakes.openai_server import Reply, default_responder

    return Reply(texts=default_responder(request).texts, delay_s=MODEL_LATENCY_S)


def serve_fakes(n_prs: int, conn: Connection) -> None:
    """Child process: seeded fake GitHub + slow fake model until told to stop."""
    from tests.fakes.github_server import FakeGitHub
    from tests.fakes.harvest_history import seed_history
    from tests.fakes.openai_server import FakeOpenAI

    with FakeGitHub() as gh, FakeOpenAI(responder=_slow_model) as model:
        history = seed_history(gh, n_prs=n_prs)
        gh.latency_s = GITHUB_LATENCY_S
        kept = sorted(f"acme__widgets-{p.number}" for p in history.kept)
        conn.send((gh.base_url, gh.bot_token, model.api_base, history.repo, kept))
        conn.recv()  # stop
        calls = {}
        for _, path in gh.requests:
            if path.endswith("/commits"):
                calls[path] = calls.get(path, 0) + 1
        conn.send(max(calls.values(), default=0))


def run(
    workers: int, prs_per_worker: int, redis_url: str | None = None, database_url: str | None = None
) -> dict[str, Any]:
    from huey import Huey, RedisHuey, SqliteHuey

    from app.harvest.fanout import queue_dispatch, register_harvest_task
    from app.harvest.label import make_labeller
    from app.harvest.runner import HarvestContext, harvest_repo
    from app.settings import Settings
    from tests.harvest_support import QueueWorkers, fake_model, store_at, wait_idle

    parent, child = mp.Pipe()
    server = mp.Process(target=serve_fakes, args=(workers * prs_per_worker, child), daemon=True)
    server.start()
    base_url, token, api_base, repo, kept = parent.recv()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            from app.github.retries import RetryPolicy
            from app.harvest.budget import RateBudget
            from app.harvest.source import GitHubHarvestSource

            store = store_at(database_url or f"sqlite:///{tmp}/spice.db")
            source = GitHubHarvestSource(
                lambda: token, base_url, RateBudget(per_hour=1e9, burst=10**9), RetryPolicy()
            )
            ctx = HarvestContext(
                source=source,
                store=store,
                labeller=make_labeller(Settings(votes=3), fake_model(api_base, timeout_s=60)),
            )
            huey: Huey
            if redis_url:
                name = f"spice-bench-{os.getpid()}-{workers}"
                huey = RedisHuey(name, url=redis_url, results=False, blocking=False)
            else:
                huey = SqliteHuey("bench", filename=f"{tmp}/queue.db", results=False)
            task = register_harvest_task(huey, lambda _inst: ctx)
            report = harvest_repo(store, source, repo, queue_dispatch(task, repo, True))
            started = time.perf_counter()
            with QueueWorkers(huey, workers) as pool:
                wait_idle(pool, timeout_s=1800)
            elapsed = time.perf_counter() - started
            ids = [row.instance["instance_id"] for row in store.instances()]
            labelled = sum(1 for row in store.instances() if row.labels.get("labelled"))
            if redis_url:
                huey.storage.flush_all()
        parent.send("stop")
        max_fetches = parent.recv()
    finally:
        server.join(timeout=10)
        if server.is_alive():
            server.kill()
    return {
        "workers": workers,
        "prs": report.enqueued,
        "instances": len(ids),
        "labelled": labelled,
        "seconds": round(elapsed, 2),
        "prs_per_s": report.enqueued / elapsed,
        "duplicates": len(ids) - len(set(ids)),
        "exact_set": sorted(ids) == kept,
        "max_fetches_per_pr": max_fetches,
    }


def _truncate(url: str) -> None:
    from sqlalchemy import text

    from tests.harvest_support import store_at

    store_at(url)  # migrate
    from app.store.engine import make_engine

    with make_engine(url).begin() as conn:
        conn.execute(text("DELETE FROM task_instances"))
        conn.execute(text("DELETE FROM harvest_cursors"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--prs-per-worker", type=int, default=16)
    parser.add_argument("--json", type=Path, help="Also write the results here.")
    parser.add_argument("--redis-url", help="Queue on Redis instead of a SQLite file.")
    parser.add_argument(
        "--database-url", help="Store on this (empty, throwaway) database; each run truncates it."
    )
    args = parser.parse_args()
    results = []
    for w in args.workers:
        if args.database_url:
            _truncate(args.database_url)
        results.append(run(w, args.prs_per_worker, args.redis_url, args.database_url))
    base = next(r for r in results if r["workers"] == min(args.workers))
    per_worker = base["prs_per_s"] / base["workers"]
    print(
        f"fake GitHub {GITHUB_LATENCY_S * 1000:.0f} ms/request, fake model {MODEL_LATENCY_S:.0f} s/request"
    )
    print("workers  PRs  instances  seconds   PR/s  ideal PR/s  ratio  duplicates  exact set")
    ok = True
    for r in results:
        r["ideal_prs_per_s"] = per_worker * r["workers"]
        r["ratio"] = r["prs_per_s"] / r["ideal_prs_per_s"]
        print(
            f"{r['workers']:>7}  {r['prs']:>3}  {r['instances']:>9}  {r['seconds']:>7.1f}"
            f"  {r['prs_per_s']:>5.2f}  {r['ideal_prs_per_s']:>10.2f}  {r['ratio']:>5.0%}"
            f"  {r['duplicates']:>10}  {r['exact_set']!s:>9}"
        )
        ok &= r["duplicates"] == 0 and r["exact_set"] and r["max_fetches_per_pr"] == 1
    top = max(results, key=lambda r: r["workers"])
    ok &= top["workers"] < 16 or top["ratio"] >= 0.8
    print(f"acceptance (16 workers >= 80% of ideal, no duplicates): {'PASS' if ok else 'FAIL'}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

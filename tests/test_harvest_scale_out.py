"""Fan-out over the huey queue: two workers (Redis + PostgreSQL) build exactly one worker's set."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from huey import Huey, RedisHuey, SqliteHuey

from app.harvest.fanout import queue_dispatch, register_harvest_task
from app.harvest.label import make_labeller
from app.harvest.runner import HarvestContext, harvest_repo, thread_dispatch
from app.harvest.store import HarvestStore
from app.settings import Settings
from tests.fakes.github_server import FakeGitHub
from tests.fakes.harvest_history import History, seed_history
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import (
    QueueWorkers,
    fake_model,
    fake_source,
    sqlite_store,
    store_at,
    wait_idle,
)

REDIS_URL = "redis://127.0.0.1:6379/0"
PG_ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres connect_timeout=3"


@pytest.fixture
def seeded() -> Iterator[tuple[FakeGitHub, History]]:
    with FakeGitHub() as gh:
        yield gh, seed_history(gh, n_prs=32)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    psycopg = pytest.importorskip("psycopg")
    try:
        admin = psycopg.connect(PG_ADMIN, autocommit=True)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL on 127.0.0.1:5432 (user postgres, trust auth): {exc}")
    name = f"spice_harvest_{uuid.uuid4().hex[:10]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@pytest.fixture
def redis_url() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"no Redis on 127.0.0.1:6379: {exc}")
    return REDIS_URL


def snapshot(store: HarvestStore) -> dict[str, tuple[dict[str, Any], list[Any]]]:
    """Instance content and every dimension's votes, per instance id."""
    out = {}
    for row in store.instances():
        votes = [row.labels[d]["votes"] for d in ("clarity", "tests", "difficulty")]
        out[row.instance["instance_id"]] = (row.instance, votes)
    return out


def one_worker(gh: FakeGitHub, history: History, tmp_path: Path, api_base: str) -> HarvestStore:
    store = sqlite_store(tmp_path, "reference.db")
    source = fake_source(gh)
    labeller = make_labeller(Settings(votes=3), fake_model(api_base))
    ctx = HarvestContext(source=source, store=store, labeller=labeller)
    with ThreadPoolExecutor(1) as pool:
        harvest_repo(store, source, history.repo, thread_dispatch(ctx, history.repo, pool, True))
    return store


def fan_out(
    gh: FakeGitHub,
    history: History,
    hueys: list[Huey],
    store_url: str,
    api_base: str,
    threads: int = 2,
) -> HarvestStore:
    """One coordinator enqueues every PR twice (a lost cursor); one worker pool per huey."""
    coordinator = store_at(store_url)
    tasks = []
    for huey in hueys:
        # Each "machine" has its own engine, GitHub client and model client.
        ctx = HarvestContext(
            source=fake_source(gh),
            store=store_at(store_url),
            labeller=make_labeller(Settings(votes=3), fake_model(api_base)),
        )
        tasks.append(register_harvest_task(huey, lambda _inst, ctx=ctx: ctx, retry_delay_s=0))
    for _ in range(2):
        coordinator.restart(history.repo)
        report = harvest_repo(
            coordinator, fake_source(gh), history.repo, queue_dispatch(tasks[0], history.repo, True)
        )
        assert report.enqueued == sum(1 for p in history.prs if p.merged_at)
    pools = [QueueWorkers(huey, threads) for huey in hueys]
    for pool in pools:
        pool.__enter__()
    try:
        wait_idle(*pools)
    finally:
        for pool in pools:
            pool.__exit__(None, None, None)
    assert all(pool.executed > 0 for pool in pools), "one worker did all the work"
    return coordinator


def test_two_workers_on_redis_and_postgres_match_one_worker(
    seeded: tuple[FakeGitHub, History],
    tmp_path: Path,
    fake_openai: FakeOpenAI,
    redis_url: str,
    postgres_url: str,
) -> None:
    gh, history = seeded
    reference = snapshot(one_worker(gh, history, tmp_path, fake_openai.api_base))
    assert len(reference) == len(history.kept)
    name = f"spice-harvest-test-{uuid.uuid4().hex[:8]}"
    hueys: list[Huey] = [
        RedisHuey(name, url=redis_url, results=False, blocking=False) for _ in range(2)
    ]
    try:
        store = fan_out(gh, history, hueys, postgres_url, fake_openai.api_base)
        assert snapshot(store) == reference
        assert len(store.instances()) == len(reference)  # the unique key held
    finally:
        hueys[0].storage.flush_all()


def test_two_workers_on_the_sqlite_queue_match_one_worker(
    seeded: tuple[FakeGitHub, History], tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    gh, history = seeded
    reference = snapshot(one_worker(gh, history, tmp_path, fake_openai.api_base))
    queue = str(tmp_path / "queue.db")
    hueys: list[Huey] = [SqliteHuey("spice", filename=queue, results=False) for _ in range(2)]
    store = fan_out(gh, history, hueys, f"sqlite:///{tmp_path / 'shared.db'}", fake_openai.api_base)
    assert snapshot(store) == reference


def test_cli_enqueue_then_queue_workers_from_settings(
    seeded: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from app.cli.main import cli
    from app.harvest.fanout import settings_contexts
    from app.queue.factory import make_huey

    gh, history = seeded
    env = {
        "SPICE_GITHUB_API_URL": gh.base_url,
        "SPICE_GITHUB_TOKEN": gh.bot_token,
        "SPICE_DATA_DIR": str(tmp_path / "data"),
    }
    result = CliRunner().invoke(cli, ["harvest", history.repo, "--enqueue", "--no-label"], env=env)
    assert result.exit_code == 0, result.output
    assert '"enqueued": ' in result.stdout
    # What `spice worker` does on start-up, from the same settings.
    settings = Settings(
        github_api_url=gh.base_url, github_token=gh.bot_token, data_dir=tmp_path / "data"
    )
    huey = make_huey(settings)
    register_harvest_task(huey, settings_contexts(settings))
    with QueueWorkers(huey, 2) as pool:
        wait_idle(pool)
    store = store_at(f"sqlite:///{tmp_path / 'data' / 'spice.db'}")
    want = sorted(f"acme__widgets-{p.number}" for p in history.kept)
    assert sorted(r.instance["instance_id"] for r in store.instances()) == want

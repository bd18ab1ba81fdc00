"""Real PostgreSQL and Redis on 127.0.0.1 for the service tests, or a skip with the reason."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

PG_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A fresh database on the local server (trust auth), dropped afterwards."""
    import psycopg

    name = f"spice_test_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(
            "host=127.0.0.1 port=5432 user=postgres dbname=postgres",
            autocommit=True,
            connect_timeout=3,
        )
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable on 127.0.0.1:5432: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_or_skip() -> str:
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis not reachable on 127.0.0.1:6379: {exc}")
    finally:
        client.close()
    return REDIS_URL

"""The huey instance for these settings: SqliteHuey under the data directory or RedisHuey."""

from __future__ import annotations

import sqlite3

from huey import Huey, RedisHuey, SqliteHuey
from huey.storage import SqliteStorage

from app.settings import Settings


class WalSqliteStorage(SqliteStorage):
    """huey's SQLite storage with `synchronous=NORMAL`.

    huey offers FULL (an fsync per enqueue: milliseconds on the webhook path) or OFF (a power
    cut can corrupt the file). NORMAL in WAL mode survives process crashes, cannot corrupt,
    and loses at most the last commits on power loss, which the job rows' recovery sweep
    re-enqueues anyway.
    """

    def _create_connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection = super()._create_connection()
        conn.execute("pragma synchronous=NORMAL")
        return conn


class WalSqliteHuey(SqliteHuey):
    storage_class = WalSqliteStorage


def make_huey(settings: Settings) -> Huey:
    """RedisHuey when `SPICE_REDIS_URL` is set, else a SQLite queue file next to the store."""
    if settings.redis_url:
        return RedisHuey(name=settings.queue_name, url=settings.redis_url, results=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return WalSqliteHuey(
        name=settings.queue_name,
        filename=str((settings.data_dir / "queue.db").resolve()),
        results=False,
        timeout=10,
    )

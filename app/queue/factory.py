"""The huey instance for these settings: SqliteHuey under the data directory or RedisHuey."""

from __future__ import annotations

from huey import Huey, RedisHuey, SqliteHuey

from app.settings import Settings


def make_huey(settings: Settings) -> Huey:
    """RedisHuey when `SPICE_REDIS_URL` is set, else a SQLite queue file next to the store."""
    if settings.redis_url:
        return RedisHuey(name=settings.queue_name, url=settings.redis_url, results=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(
        name=settings.queue_name,
        filename=str((settings.data_dir / "queue.db").resolve()),
        results=False,
        timeout=10,
    )

"""Engine and session factory from the settings: SQLite (WAL, busy timeout) or PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings

SQLITE_BUSY_TIMEOUT_MS = 10_000


def database_url(settings: Settings) -> str:
    """The configured URL, or a SQLite file under the data directory."""
    if settings.database_url:
        return settings.database_url
    return f"sqlite:///{(settings.data_dir / 'spice.db').resolve()}"


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL (None for other backends and in-memory)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def make_engine(url: str) -> Engine:
    """An engine; SQLite gets WAL, a busy timeout and write-locking transactions."""
    path = sqlite_path(url)
    if path is None:
        return create_engine(url, pool_pre_ping=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when a transaction begins (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # Take the write lock up front: a deferred transaction that later writes can fail
        # with SQLITE_BUSY without waiting, which the busy timeout cannot cure.
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)

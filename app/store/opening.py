"""A process's store, opened once at its top: engine from the settings, schema at head."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory


class Store(NamedTuple):
    engine: Engine
    sessions: sessionmaker[Session]


def open_store(settings: Settings, *, migrate: bool = True) -> Store:
    """The store the settings name, migrated (idempotent; concurrent callers serialise).

    `migrate=False` where the schema is known to be at head already (gunicorn's web workers:
    `spice serve` migrates once before they start)."""
    engine = make_engine(database_url(settings))
    if migrate:
        # Imported here only: alembic costs a web worker ~10 MB it never uses.
        from app.store.migrate import upgrade_to_head

        upgrade_to_head(engine)
    return Store(engine, session_factory(engine))

"""A process's store, opened once at its top: engine from the settings, schema at head."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings
from app.store.engine import database_url, make_engine, session_factory
from app.store.migrate import upgrade_to_head


class Store(NamedTuple):
    engine: Engine
    sessions: sessionmaker[Session]


def open_store(settings: Settings) -> Store:
    """The store the settings name, migrated (idempotent; concurrent callers serialise)."""
    engine = make_engine(database_url(settings))
    upgrade_to_head(engine)
    return Store(engine, session_factory(engine))

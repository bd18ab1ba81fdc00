"""Alembic environment: runs against the engine (or connection) handed over by migrate.py."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from app.store.models import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    attributes = context.config.attributes
    if "connection" in attributes:
        _run(attributes["connection"])
        return
    if "engine" in attributes:
        engine = attributes["engine"]
    else:
        # The `alembic` command line: the URL comes from the usual settings.
        from app.settings import Settings
        from app.store.engine import database_url, make_engine

        engine = make_engine(database_url(Settings()))
    with engine.connect() as connection:
        _run(connection)
        connection.commit()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run them online")
run_online()

"""`INSERT ... ON CONFLICT` for the session's dialect (SQLite and PostgreSQL share the syntax)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session


def dialect_insert(session: Session, table: Any) -> Any:
    """An insert construct offering `on_conflict_do_nothing/do_update` on either backend."""
    return insert_for(session.get_bind().dialect.name, table)


def insert_for(name: str, table: Any) -> Any:
    """`dialect_insert` by dialect name (for statements built once and cached)."""
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise NotImplementedError(f"upserts are implemented for SQLite and PostgreSQL, not {name}")

"""Apply the Alembic migrations (`upgrade head`) from code, once even with many processes."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from filelock import FileLock
from sqlalchemy import Engine, text

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# Any constant works; it only has to be the same for every process of this service.
PG_ADVISORY_LOCK_ID = 0x5B1CE


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade_to_head(engine: Engine) -> None:
    """Bring the schema to the newest revision; concurrent callers serialise on a lock."""
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database not in (None, "", ":memory:"):
        with FileLock(f"{database}.migrate.lock", timeout=60, mode=0o600):
            command.upgrade(alembic_config(engine), "head")
    elif engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": PG_ADVISORY_LOCK_ID})
            try:
                cfg = alembic_config(engine)
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
                conn.commit()
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": PG_ADVISORY_LOCK_ID})
                conn.commit()
    else:
        command.upgrade(alembic_config(engine), "head")

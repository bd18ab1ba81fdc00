"""Dashboard sign-ins kept on the server, so that signing out ends one everywhere.

The cookie carries a random session id; the store keeps its SHA-256 and expiry. Every web
worker (and every host sharing the database) sees a sign-out at once.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.store.models import DashboardSession, utcnow


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def start_session(
    session: Session, login: str, lifetime_s: float, now: datetime | None = None
) -> str:
    """A new session id for `login`, valid `lifetime_s`; expired sign-ins are dropped here
    (sign-ins are rare, so this keeps the table small without a worker's help)."""
    now = now or utcnow()
    session.execute(delete(DashboardSession).where(DashboardSession.expires_at <= now))
    session_id = secrets.token_urlsafe(32)
    session.add(
        DashboardSession(
            id_sha256=_digest(session_id),
            login=login,
            created_at=now,
            expires_at=now + timedelta(seconds=lifetime_s),
        )
    )
    return session_id


def session_live(session: Session, session_id: str, now: datetime | None = None) -> bool:
    found = session.scalar(
        select(DashboardSession.id_sha256).where(
            DashboardSession.id_sha256 == _digest(session_id),
            DashboardSession.expires_at > (now or utcnow()),
        )
    )
    return found is not None


def end_session(session: Session, session_id: str) -> None:
    session.execute(
        delete(DashboardSession).where(DashboardSession.id_sha256 == _digest(session_id))
    )

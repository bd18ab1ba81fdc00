"""Recording webhook deliveries: exactly one row per `X-GitHub-Delivery` id."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from app.store import payloads
from app.store.models import Delivery, DeliveryStatus, utcnow


class NewDelivery(BaseModel):
    """A delivery to store; `received` builds one from the body as it came in."""

    delivery_id: str
    event: str
    action: str | None
    repo: str | None
    job_key: str
    payload: bytes
    """As stored: encoded by `payload_codec`."""
    kind: str | None = None
    """The route decided at the door (app.routing): the worker dispatches on it."""
    number: int | None = None
    installation: int | None = None
    payload_codec: str | None = None
    repos: tuple[str, ...] = ()
    """The repositories an installation event takes away: applied at the door, not stored."""
    payload_sha256: str = Field(
        default_factory=lambda data: hashlib.sha256(data["payload"]).hexdigest()
    )
    """Of the payload as received; by default of `payload` (stored as received)."""

    @classmethod
    def received(
        cls,
        *,
        delivery_id: str,
        event: str,
        action: str | None,
        repo: str | None,
        job_key: str,
        body: bytes,
        kind: str | None = None,
        number: int | None = None,
        installation: int | None = None,
        repos: tuple[str, ...] = (),
    ) -> NewDelivery:
        """Hashed and compressed where it is received."""
        stored, codec = payloads.pack(body)
        # Every field is built here with its type: validating them again is pure cost.
        return cls.model_construct(
            delivery_id=delivery_id,
            event=event,
            action=action,
            repo=repo,
            job_key=job_key,
            kind=kind,
            number=number,
            installation=installation,
            repos=repos,
            payload=stored,
            payload_codec=codec.value,
            payload_sha256=hashlib.sha256(body).hexdigest(),
        )


_STORED_AMONG = select(Delivery.delivery_id).where(
    Delivery.delivery_id.in_(bindparam("ids", expanding=True))
)
_INSERT = insert(Delivery)


def record_deliveries(session: Session, batch: Sequence[NewDelivery]) -> set[str]:
    """Insert the deliveries not stored yet (the first of repeated ids); returns their ids.

    A concurrent transaction storing one of these ids in between (PostgreSQL; SQLite
    writers are serialised) makes the insert fail, and the caller looks again.
    """
    if not batch:
        return set()
    conn = session.connection()
    stored = set(conn.scalars(_STORED_AMONG, {"ids": [new.delivery_id for new in batch]}))
    now = utcnow()
    rows: list[dict[str, Any]] = []
    fresh: set[str] = set()
    for new in batch:
        if new.delivery_id in stored or new.delivery_id in fresh:
            continue
        fresh.add(new.delivery_id)
        row = new.model_dump(exclude={"repos"})
        rows.append(row | {"status": DeliveryStatus.queued.value, "received_at": now})
    if rows:
        conn.execute(_INSERT, rows)
    return fresh


def delivery_body(delivery: Delivery) -> bytes:
    """The payload exactly as GitHub sent it."""
    return payloads.unpack(delivery.payload, delivery.payload_codec, delivery.payload_sha256)


def get_delivery(session: Session, delivery_id: str) -> Delivery | None:
    return session.scalar(select(Delivery).where(Delivery.delivery_id == delivery_id))


def set_delivery_status(session: Session, delivery_id: str, status: DeliveryStatus) -> None:
    session.execute(
        update(Delivery).where(Delivery.delivery_id == delivery_id).values(status=status)
    )

"""Recording webhook deliveries: exactly one row per `X-GitHub-Delivery` id."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from pydantic import BaseModel, Field
from sqlalchemy import Connection, CursorResult, Table, bindparam, insert, select, update
from sqlalchemy.orm import Session

from app.store import payloads
from app.store.bulk_insert import BulkInsert
from app.store.models import Delivery, DeliveryStatus, utcnow
from app.store.upsert import insert_for


class NewDelivery(BaseModel):
    """A delivery to store; `received` builds one from the body as it came in."""

    delivery_id: str
    event: str
    action: str | None
    repo: str | None
    job_key: str
    payload: bytes
    """As stored: encoded by `payload_codec`."""
    payload_codec: str | None = None
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
    ) -> NewDelivery:
        """Hashed and compressed where it is received: web workers run in parallel, the
        store's writer does not."""
        stored, codec = payloads.pack(body)
        # Every field is built here with its type: validating them again is pure cost.
        return cls.model_construct(
            delivery_id=delivery_id,
            event=event,
            action=action,
            repo=repo,
            job_key=job_key,
            payload=stored,
            payload_codec=codec.value,
            payload_sha256=hashlib.sha256(body).hexdigest(),
        )


_COLUMNS = [
    "delivery_id",
    "event",
    "action",
    "repo",
    "job_key",
    "payload",
    "payload_codec",
    "payload_sha256",
    "status",
    "received_at",
]
_INSERT_SKIPPING_STORED = BulkInsert(
    cast(Table, Delivery.__table__),
    _COLUMNS,
    lambda dialect: insert_for(dialect, Delivery.__table__).on_conflict_do_nothing(
        index_elements=["delivery_id"]
    ),
)


def _row(new: NewDelivery, now: datetime) -> dict[str, Any]:
    # dict(model) rather than model_dump(): no copy of the payload, a third of the cost.
    return dict(new) | {"status": DeliveryStatus.queued.value, "received_at": now}


def insert_unseen(conn: Connection, batch: Sequence[NewDelivery]) -> bool:
    """Insert deliveries of distinct ids, skipping stored ones; True when none was stored.

    One statement for the common case (nothing redelivered). On False the caller rolls back
    and takes `record_deliveries`, which says which ones were stored.
    """
    now = utcnow()
    result = _INSERT_SKIPPING_STORED.execute(conn, [_row(new, now) for new in batch])
    return cast(CursorResult[Any], result).rowcount == len(batch)


_STORED_AMONG = select(Delivery.delivery_id).where(
    Delivery.delivery_id.in_(bindparam("ids", expanding=True))
)
_INSERT = insert(Delivery)


def record_delivery(session: Session, new: NewDelivery) -> bool:
    """Insert the delivery; False when its id was already stored (a redelivery)."""
    return bool(record_deliveries(session, [new]))


def record_deliveries(session: Session, batch: Sequence[NewDelivery]) -> set[str]:
    """Insert the deliveries not stored yet (the first of repeated ids); returns their ids.

    A lookup, then a plain multi-row insert: an `ON CONFLICT ... RETURNING` per row costs
    twice as much. A concurrent transaction storing one of these ids in between (PostgreSQL;
    SQLite writers are serialised) makes the insert fail, and the caller retries one by one.
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
        rows.append(new.model_dump() | {"status": DeliveryStatus.queued.value, "received_at": now})
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

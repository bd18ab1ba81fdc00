"""Recording webhook deliveries: exactly one row per `X-GitHub-Delivery` id."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.store.models import Delivery, DeliveryStatus, utcnow
from app.store.upsert import insert_for


class NewDelivery(BaseModel):
    delivery_id: str
    event: str
    action: str | None
    repo: str | None
    job_key: str
    payload: bytes


@functools.cache
def _insert_if_new(dialect: str) -> Any:
    # Built once per dialect: constructing the statement costs more than running it.
    table = Delivery.__table__
    return (
        insert_for(dialect, table)
        .on_conflict_do_nothing(index_elements=["delivery_id"])
        .returning(table.c.delivery_id)
    )


def _row(new: NewDelivery) -> dict[str, Any]:
    return new.model_dump() | {
        "payload_sha256": hashlib.sha256(new.payload).hexdigest(),
        "status": DeliveryStatus.queued.value,
        "received_at": utcnow(),
    }


def record_delivery(session: Session, new: NewDelivery) -> bool:
    """Insert the delivery; False when its id was already stored (a redelivery)."""
    conn = session.connection()
    return conn.execute(_insert_if_new(conn.dialect.name), _row(new)).first() is not None


def record_deliveries(session: Session, batch: Sequence[NewDelivery]) -> set[str]:
    """Insert many deliveries in one statement; returns the ids that were new."""
    if not batch:
        return set()
    conn = session.connection()
    rows = conn.execute(_insert_if_new(conn.dialect.name), [_row(new) for new in batch])
    return {row[0] for row in rows}


def get_delivery(session: Session, delivery_id: str) -> Delivery | None:
    return session.scalar(select(Delivery).where(Delivery.delivery_id == delivery_id))


def set_delivery_status(session: Session, delivery_id: str, status: DeliveryStatus) -> None:
    session.execute(
        update(Delivery).where(Delivery.delivery_id == delivery_id).values(status=status)
    )

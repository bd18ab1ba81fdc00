"""Recording webhook deliveries: exactly one row per `X-GitHub-Delivery` id."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.store.models import Delivery, DeliveryStatus
from app.store.upsert import dialect_insert


class NewDelivery(BaseModel):
    delivery_id: str
    event: str
    action: str | None
    repo: str | None
    job_key: str
    payload: bytes


def record_delivery(session: Session, new: NewDelivery) -> bool:
    """Insert the delivery; False when its id was already stored (a redelivery)."""
    stmt = (
        dialect_insert(session, Delivery)
        .values(
            delivery_id=new.delivery_id,
            event=new.event,
            action=new.action,
            repo=new.repo,
            job_key=new.job_key,
            payload_sha256=hashlib.sha256(new.payload).hexdigest(),
            payload=new.payload,
            status=DeliveryStatus.queued,
        )
        .on_conflict_do_nothing(index_elements=["delivery_id"])
        .returning(Delivery.id)
    )
    return session.execute(stmt).first() is not None


def get_delivery(session: Session, delivery_id: str) -> Delivery | None:
    return session.scalar(select(Delivery).where(Delivery.delivery_id == delivery_id))


def set_delivery_status(session: Session, delivery_id: str, status: DeliveryStatus) -> None:
    session.execute(
        update(Delivery).where(Delivery.delivery_id == delivery_id).values(status=status)
    )

"""Accepting a verified delivery: store it once, note its job, enqueue at most one run."""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum

from sqlalchemy.orm import Session, sessionmaker

from app.store.deliveries import NewDelivery, record_delivery, set_delivery_status
from app.store.jobs import request_run
from app.store.models import DeliveryStatus

log = logging.getLogger(__name__)


class Intake(StrEnum):
    queued = "queued"
    coalesced = "coalesced"
    duplicate = "duplicate"


def accept_delivery(
    sessions: sessionmaker[Session], new: NewDelivery, enqueue: Callable[[str], object]
) -> Intake:
    """Persist delivery and job in one transaction, then ring the queue.

    The job row is the durable record: if the enqueue fails, the recovery sweep finds the
    pending job after the lease, so the delivery is still answered as accepted.
    """
    with sessions.begin() as session:
        if not record_delivery(session, new):
            return Intake.duplicate
        must_enqueue = request_run(session, new.job_key, new.delivery_id)
        if not must_enqueue:
            set_delivery_status(session, new.delivery_id, DeliveryStatus.coalesced)
    if not must_enqueue:
        return Intake.coalesced
    try:
        enqueue(new.delivery_id)
    except Exception:
        # Queue down (Redis away, disk full): logged with the delivery; the sweep re-enqueues.
        log.exception("enqueue failed delivery=%s key=%s", new.delivery_id, new.job_key)
    return Intake.queued

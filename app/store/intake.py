"""A delivery and its job stored in one transaction: each delivery once, one run per key."""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.store.deliveries import NewDelivery, record_deliveries, set_delivery_status
from app.store.jobs import request_run, rerun_failed
from app.store.models import DeliveryStatus
from app.store.retention import restore_pruned

log = logging.getLogger(__name__)
Enqueue = Callable[[str], object]


class Intake(StrEnum):
    queued = "queued"
    coalesced = "coalesced"
    duplicate = "duplicate"


class StoreUnavailable(Exception):
    """The delivery could not be stored now; GitHub can redeliver it later."""


def store_delivery(sessions: sessionmaker[Session], new: NewDelivery) -> Intake:
    """Store `new` and note its job; `queued` means a run must be enqueued.

    A redelivery is a duplicate, except of a delivery whose job failed for good: a
    maintainer pressing GitHub's "Redeliver" then means "run it again".
    """
    for attempt in (1, 2):
        try:
            with sessions.begin() as session:
                return _store(session, new)
        except IntegrityError:
            # Another transaction stored this id or created this key in between
            # (PostgreSQL; SQLite writers are serialised): look again, once.
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _store(session: Session, new: NewDelivery) -> Intake:
    if not record_deliveries(session, [new]):
        restore_pruned(session, new)
        again = rerun_failed(session, {new.delivery_id: new.job_key})
        return Intake.queued if again else Intake.duplicate
    if request_run(session, new.job_key, new.delivery_id):
        return Intake.queued
    set_delivery_status(session, new.delivery_id, DeliveryStatus.coalesced)
    return Intake.coalesced


def accept(sessions: sessionmaker[Session], new: NewDelivery, enqueue: Enqueue) -> Intake:
    """Store, then ring the queue; raises `StoreUnavailable` when nothing could be stored.

    The job row is the durable record: a queue that refuses loses nothing, the recovery
    sweep finds the pending job later, so the delivery is still answered as accepted.
    """
    try:
        intake = store_delivery(sessions, new)
    except SQLAlchemyError as exc:
        # The type only: a database error's text quotes the statement's parameters.
        raise StoreUnavailable(f"store failed: {type(exc).__name__}") from exc
    if intake is Intake.queued:
        try:
            enqueue(new.delivery_id)
        except Exception:
            log.exception("enqueue failed delivery=%s", new.delivery_id)
    return intake

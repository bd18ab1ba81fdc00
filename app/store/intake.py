"""A delivery and its job stored in one transaction: each delivery once, one run per key."""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.routing import INSTALLATION
from app.store.deliveries import NewDelivery, record_deliveries, set_delivery_status
from app.store.installations import InstallationChange, apply_change, hold_on
from app.store.jobs import request_run, rerun_failed
from app.store.models import DeliveryStatus
from app.store.retention import restore_pruned

log = logging.getLogger(__name__)
Enqueue = Callable[[str], object]


class Intake(StrEnum):
    queued = "queued"
    coalesced = "coalesced"
    duplicate = "duplicate"
    applied = "applied"
    """An installation event, applied as it was stored (no job)."""
    cancelled = "cancelled"
    """Its installation is uninstalled or suspended: stored, not run."""


class Stored(NamedTuple):
    """What storing one delivery came to, and the runs it calls for."""

    intake: Intake
    enqueue: list[str]
    """Delivery ids whose runs must be enqueued."""


class StoreUnavailable(Exception):
    """The delivery could not be stored now; GitHub can redeliver it later."""


def store_delivery(sessions: sessionmaker[Session], new: NewDelivery) -> Stored:
    """Store `new` and note its job (or apply its installation change).

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


def _store(session: Session, new: NewDelivery) -> Stored:
    if not record_deliveries(session, [new]):
        restore_pruned(session, new)
        again = rerun_failed(session, {new.delivery_id: new.job_key})
        return Stored(Intake.queued, [new.delivery_id]) if again else Stored(Intake.duplicate, [])
    if new.kind == INSTALLATION:
        assert new.installation is not None and new.action is not None  # routing requires both
        change = InstallationChange(
            installation=new.installation, action=new.action, repos=new.repos
        )
        restored = apply_change(session, change)
        set_delivery_status(session, new.delivery_id, DeliveryStatus.applied)
        return Stored(Intake.applied, restored)
    if hold_on(session, new.installation, new.repo) is not None:
        set_delivery_status(session, new.delivery_id, DeliveryStatus.cancelled)
        return Stored(Intake.cancelled, [])
    if request_run(session, new.job_key, new.delivery_id):
        return Stored(Intake.queued, [new.delivery_id])
    set_delivery_status(session, new.delivery_id, DeliveryStatus.coalesced)
    return Stored(Intake.coalesced, [])


def accept(sessions: sessionmaker[Session], new: NewDelivery, enqueue: Enqueue) -> Intake:
    """Store, then ring the queue; raises `StoreUnavailable` when nothing could be stored.

    The job row is the durable record: a queue that refuses loses nothing, the recovery
    sweep finds the pending job later, so the delivery is still answered as accepted.
    """
    try:
        stored = store_delivery(sessions, new)
    except SQLAlchemyError as exc:
        # The type only: a database error's text quotes the statement's parameters.
        raise StoreUnavailable(f"store failed: {type(exc).__name__}") from exc
    for delivery_id in stored.enqueue:
        try:
            enqueue(delivery_id)
        except Exception:
            log.exception("enqueue failed delivery=%s", delivery_id)
    return stored.intake

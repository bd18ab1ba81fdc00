"""Payload retention: payloads of private repositories are not kept longer than needed (nor
the run logs of validated instances).

A delivery's payload is only needed until its job has run; past the retention period it is
dropped, while the delivery row (id, event, hash, status), the job and its assessments stay.
"""

from __future__ import annotations

import shutil
import time
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.store.deliveries import NewDelivery
from app.store.models import Delivery, DeliveryStatus, Job, JobState, utcnow
from app.store.payloads import PayloadCodec

VALIDATION_LOGS = "validation-logs"
"""Under the data dir: each validated instance's run logs, a folder per instance."""
FINISHED = (
    DeliveryStatus.done,
    DeliveryStatus.failed,
    DeliveryStatus.coalesced,
    DeliveryStatus.cancelled,
    DeliveryStatus.applied,
)
WAITING = (JobState.pending, JobState.running)


def prune_payloads(session: Session, retention_days: float, now: datetime | None = None) -> int:
    """Drop payloads received more than `retention_days` ago whose job has nothing left to
    run; returns how many were dropped."""
    cutoff = (now or utcnow()) - timedelta(days=retention_days)
    waiting_keys = select(Job.key).where(Job.state.in_(WAITING))
    result = session.execute(
        update(Delivery)
        .where(
            Delivery.received_at < cutoff,
            Delivery.status.in_(FINISHED),
            Delivery.payload_codec.is_distinct_from(PayloadCodec.pruned.value),
            Delivery.job_key.not_in(waiting_keys),
        )
        .values(payload=b"", payload_codec=PayloadCodec.pruned.value)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def restore_pruned(session: Session, redelivered: NewDelivery) -> bool:
    """A redelivery of a pruned delivery (same id, same body) brings its payload back."""
    result = session.execute(
        update(Delivery)
        .where(
            Delivery.delivery_id == redelivered.delivery_id,
            Delivery.payload_codec == PayloadCodec.pruned.value,
            Delivery.payload_sha256 == redelivered.payload_sha256,
        )
        .values(payload=redelivered.payload, payload_codec=redelivered.payload_codec)
        .execution_options(synchronize_session=False)
    )
    return bool(getattr(result, "rowcount", 0))


def prune_folders(where: Path, retention_days: float, now: float | None = None) -> int:
    """Remove the folders in `where` (one per validated instance: its run logs) last written
    more than `retention_days` ago; returns how many went."""
    if not where.is_dir():
        return 0
    cutoff = (now if now is not None else time.time()) - retention_days * 86400
    gone = 0
    for folder in where.iterdir():
        if folder.is_dir() and not folder.is_symlink() and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            gone += 1
    return gone

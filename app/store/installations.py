"""Installation events applied where they come in, in the delivery's own transaction: an
uninstall or a suspension ends the installation's waiting jobs, a repository taken away ends
its own; a job that starts (or fails) afterwards ends `cancelled` with the reason, not with
GitHub's 404. An unsuspend hands back the jobs the suspension held."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.store.models import (
    Delivery,
    DeliveryStatus,
    Installation,
    InstallationState,
    Job,
    JobState,
    RemovedRepository,
    utcnow,
)


class CancelReason(StrEnum):
    """Why a job was cancelled; stored on the job (an unsuspend restores `suspended` ones)."""

    deleted = "deleted"
    suspended = "suspended"
    removed = "removed"

    def explain(self, installation: int) -> str:
        return {
            CancelReason.deleted: f"installation {installation} was deleted (App uninstalled)",
            CancelReason.suspended: f"installation {installation} is suspended",
            CancelReason.removed: f"repository removed from installation {installation}",
        }[self]


class InstallationChange(BaseModel):
    """What one installation event changes: routed at the door (app.routing)."""

    installation: int
    action: str
    """`deleted`, `suspend`, `unsuspend` (installation), `removed` or `added` (repositories)."""
    repos: tuple[str, ...] = ()
    """The repositories taken away or given back."""


_STATE_AFTER = {
    "deleted": InstallationState.deleted,
    "suspend": InstallationState.suspended,
    "unsuspend": InstallationState.active,
}
_REASON_OF = {
    InstallationState.deleted: CancelReason.deleted,
    InstallationState.suspended: CancelReason.suspended,
}


def apply_change(session: Session, change: InstallationChange) -> list[str]:
    """Make `change`; returns the delivery ids of jobs it hands back (to enqueue)."""
    if change.action in ("removed", "added"):
        names = sorted({name.lower() for name in change.repos})
        session.execute(
            delete(RemovedRepository).where(
                RemovedRepository.installation == change.installation,
                RemovedRepository.repo.in_(names),
            )
        )
        if change.action == "removed":
            session.add_all(
                RemovedRepository(installation=change.installation, repo=name) for name in names
            )
            cancel_waiting(session, change.installation, CancelReason.removed, change.repos)
        return []
    state = _STATE_AFTER[change.action]
    row = session.get(Installation, change.installation, with_for_update=True)
    if row is None:
        row = Installation(id=change.installation, state=state)
        session.add(row)
    row.state, row.changed_at = state, utcnow()
    session.flush()
    if state is InstallationState.active:
        return restore_suspended(session, change.installation)
    cancel_waiting(session, change.installation, _REASON_OF[state])
    return []


def hold_on(session: Session, installation: int | None, repo: str | None) -> CancelReason | None:
    """Why jobs of `repo` through `installation` must not run now, or None (unknown
    installations run)."""
    if installation is None:
        return None
    state = session.scalar(select(Installation.state).where(Installation.id == installation))
    if state and (reason := _REASON_OF.get(InstallationState(state))) is not None:
        return reason
    removed = repo is not None and session.scalar(
        select(RemovedRepository.repo).where(
            RemovedRepository.installation == installation,
            RemovedRepository.repo == repo.lower(),
        )
    )
    return CancelReason.removed if removed else None


def hold_on_job(session: Session, job: Job) -> tuple[int, CancelReason] | None:
    """`hold_on` for the installation and repository of a job's latest delivery."""
    row = session.execute(
        select(Delivery.installation, Delivery.repo).where(Delivery.delivery_id == job.delivery_id)
    ).first()
    if row is None or row[0] is None:
        return None
    reason = hold_on(session, row[0], row[1])
    return None if reason is None else (row[0], reason)


def cancel_job(session: Session, job: Job, installation: int, reason: CancelReason) -> None:
    """End `job` cancelled, and with it the deliveries still waiting on it."""
    now = utcnow()
    job.state, job.updated_at, job.finished_at = JobState.cancelled, now, now
    job.cancelled_for = reason
    job.error = f"cancelled: {reason.explain(installation)}"
    session.execute(
        update(Delivery)
        .where(Delivery.job_key == job.key, Delivery.status == DeliveryStatus.queued)
        .values(status=DeliveryStatus.cancelled)
        .execution_options(synchronize_session=False)
    )


def cancel_waiting(
    session: Session, installation: int, reason: CancelReason, repos: tuple[str, ...] = ()
) -> int:
    """Cancel the pending jobs whose latest delivery came through `installation` (only those
    of `repos` when given); returns how many."""
    of_installation = select(Delivery.delivery_id).where(Delivery.installation == installation)
    if repos:
        names = [name.lower() for name in repos]
        of_installation = of_installation.where(func.lower(Delivery.repo).in_(names))
    jobs = session.scalars(
        select(Job)
        .where(Job.state == JobState.pending, Job.delivery_id.in_(of_installation))
        .with_for_update()
    ).all()
    for job in jobs:
        cancel_job(session, job, installation, reason)
    return len(jobs)


def restore_suspended(session: Session, installation: int) -> list[str]:
    """The jobs a suspension of `installation` cancelled, pending again; their delivery ids."""
    of_installation = select(Delivery.delivery_id).where(Delivery.installation == installation)
    jobs = session.scalars(
        select(Job)
        .where(
            Job.state == JobState.cancelled,
            Job.cancelled_for == CancelReason.suspended,
            Job.delivery_id.in_(of_installation),
        )
        .with_for_update()
    ).all()
    for job in jobs:
        job.state, job.cancelled_for, job.error = JobState.pending, None, None
        job.attempts, job.finished_at, job.updated_at = 0, None, utcnow()
    ids = [job.delivery_id for job in jobs]
    if ids:
        session.execute(
            update(Delivery)
            .where(Delivery.delivery_id.in_(ids))
            .values(status=DeliveryStatus.queued)
            .execution_options(synchronize_session=False)
        )
    return ids

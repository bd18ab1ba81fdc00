"""What the webhook endpoint needs from an intake, whichever process does the writing."""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from app.store.deliveries import NewDelivery


class Intake(StrEnum):
    queued = "queued"
    coalesced = "coalesced"
    duplicate = "duplicate"


class IntakeUnavailable(Exception):
    """The delivery could not be stored now; GitHub can redeliver it later."""


class DeliveryIntake(Protocol):
    async def submit(self, new: NewDelivery) -> Intake:
        """Store the delivery (or find it stored) before returning; raise if that failed."""
        ...

    async def ready(self) -> bool:
        """Whether a delivery submitted now could be stored (the store itself aside)."""
        ...

    async def aclose(self) -> None: ...

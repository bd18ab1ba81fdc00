"""The seam between the queue and whatever handles deliveries: a callable per delivery.

The queue knows no handler: the worker process is given one (app.handlers.delivery_handler
in production; tests may name another as `module:factory`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from app.routing import Route
from app.settings import Settings
from app.store.assessments import AssessmentRecord


class DeliveryHandler(Protocol):
    """Handles one delivery's payload along the route stored with it; raises to have the job
    retried."""

    def __call__(self, route: Route, payload: dict[str, Any], delivery_id: str) -> object: ...


HandlerFactory = Callable[[Settings], DeliveryHandler]


@runtime_checkable
class ReportsAssessments(Protocol):
    """An outcome that carries labelling results to store (other outcomes store nothing)."""

    @property
    def assessments(self) -> Sequence[AssessmentRecord]: ...


def load_handler(spec: str, settings: Settings) -> DeliveryHandler:
    """Build the handler named `module:factory`, where factory(settings) returns it."""
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ValueError(f"handler spec must look like 'module:factory', got {spec!r}")
    factory: HandlerFactory = getattr(importlib.import_module(module_name), attr)
    return factory(settings)


@dataclass(frozen=True)
class StoredOutcome:
    assessments: list[AssessmentRecord]

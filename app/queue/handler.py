"""The seam between the queue and the GitHub handlers: a callable per delivery, loaded by name."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from app.settings import Settings
from app.store.assessments import AssessmentRecord

DEFAULT_HANDLER = "app.queue.handler:github_handler"


class DeliveryHandler(Protocol):
    """Handles one delivery's payload; raises to have the job retried."""

    def __call__(self, event: str, payload: dict[str, Any], delivery_id: str) -> object: ...


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


def github_handler(settings: Settings) -> DeliveryHandler:
    """The production handler: the GitHub handlers' dispatch with its dependencies bound."""
    # Imported late and by name: only workers need the GitHub handlers and the engine.
    dispatch = importlib.import_module("app.handlers.dispatch")

    deps = dispatch.build_deps(settings)

    def handle(event: str, payload: dict[str, Any], delivery_id: str) -> object:
        return dispatch.handle_delivery(event, payload, delivery_id, deps)

    return handle

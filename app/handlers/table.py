"""Each job kind the door routes (app.routing.EVENTS) to the worker's handler, and the
pre-filter the worker applies before any GitHub call (our own comments and labels come back as
events). The web process never imports this: it routes; only the worker handles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.handlers.comments import handle_comment, not_a_command
from app.handlers.corrections import handle_label_change, not_a_correction
from app.handlers.issues import on_issue
from app.handlers.merges import handle_merge
from app.handlers.outcome import Done
from app.handlers.pull_requests import on_pull_request
from app.handlers.run_context import RunContext

Handler = Callable[[RunContext, dict[str, Any]], Done]
"""Every handler's one signature: the run's context and the payload in, a typed result out
(or `Skipped` / `Failed` raised: app.handlers.outcome)."""
PreFilter = Callable[[dict[str, Any]], str | None]
"""A skip reason for a delivery that is not ours to handle, or None."""

HANDLERS: dict[str, Handler] = {
    "issue": on_issue,
    "pull_request": on_pull_request,
    "harvest": handle_merge,
    "comment": handle_comment,
    "label": handle_label_change,
}
PRE_FILTERS: dict[str, PreFilter] = {"comment": not_a_command, "label": not_a_correction}

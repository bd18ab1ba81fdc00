"""Installation events: an App uninstalled, or repositories taken from it, cancels the jobs
still waiting for that installation (their tokens would be refused)."""

from __future__ import annotations

from app.handlers.deps import HandlerDeps, HandlerOutcome
from app.routing import Route


def cancel_installation_jobs(deps: HandlerDeps, route: Route, out: HandlerOutcome) -> None:
    """The event table's entry for `installation.deleted` and
    `installation_repositories.removed`."""
    out.pipeline = "installation"
    if deps.cancel_installation_jobs is None or route.installation is None:
        out.skipped = "no job store here: nothing to cancel"
        return
    cancelled = deps.cancel_installation_jobs(route.installation)
    out.skipped = f"installation {route.installation} {route.action}: {cancelled} job(s) cancelled"

"""A routed delivery -> its table entry's handler -> a `HandlerOutcome` (app.routing)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from functools import cache
from typing import Any, cast

import requests  # type: ignore[import-untyped]
from github import GithubException

from app.github.auth import GitHubAuthError
from app.github.repo_config import RepoConfig
from app.github.retries import RetryAfterTooLong, describe, is_transient
from app.handlers.comments import may_command
from app.handlers.deps import HandlerDeps, HandlerOutcome
from app.handlers.run_context import RunContext
from app.routing import InvalidPayload, Route, entry_of, route_payload
from spice_engine.errors import CostCapExceeded, ModelCallError, NoValidVotesError, SpiceError

log = logging.getLogger(__name__)


RepoHandler = Callable[[RunContext, dict[str, Any]], None]
InstallationHandler = Callable[[HandlerDeps, Route, HandlerOutcome], None]
PreFilter = Callable[[dict[str, Any]], str | None]


@cache
def resolve(spec: str) -> Callable[..., Any]:
    """A table entry's `module:function` (imported by the worker, never by the web process)."""
    module, _, name = spec.partition(":")
    return cast(Callable[..., Any], getattr(importlib.import_module(module), name))


def handle_delivery(
    event: str, payload: dict[str, Any], delivery_id: str, deps: HandlerDeps
) -> HandlerOutcome:
    """Route a delivery at this door (the Action, the CLI), then handle it."""
    action = payload.get("action")
    try:
        route = route_payload(event, payload)
    except InvalidPayload as exc:
        out = HandlerOutcome(
            event=event, action=action if isinstance(action, str) else None,
            delivery_id=delivery_id, dry_run=deps.dry_run,
        )  # fmt: skip
        out.errors.append(str(exc))  # not retryable: the payload will not change
        return out
    if route is None:
        out = HandlerOutcome(
            event=event, action=action if isinstance(action, str) else None,
            delivery_id=delivery_id, dry_run=deps.dry_run,
        )  # fmt: skip
        out.skipped = f"event {event}.{action} is not handled"
        return out
    return handle_routed(route, payload, delivery_id, deps)


def handle_routed(
    route: Route, payload: dict[str, Any], delivery_id: str, deps: HandlerDeps
) -> HandlerOutcome:
    """Handle one delivery along its route (stored at the door: never decided again here);
    failures are caught HERE only, logged, and put in `errors`.

    Callers must treat `not outcome.ok` as a failure (the worker retries when `retryable`,
    the Action exits non-zero): nothing fails silently.
    """
    out = HandlerOutcome(
        event=route.event, action=route.action, delivery_id=delivery_id, dry_run=deps.dry_run,
        repo=route.repo, number=route.number,
    )  # fmt: skip
    entry = entry_of(route.kind)
    if entry.handler is None:
        out.skipped = "an installation change: applied by the App's door, not here"
        return out
    skip = resolve(entry.pre_filter)(payload) if entry.pre_filter else None
    if skip is not None:
        out.skipped = skip  # no API call for what is not ours to handle
        return out
    try:
        if entry.in_repository:
            _run_in_repository(deps, route, resolve(entry.handler), payload, out)
        else:
            resolve(entry.handler)(deps, route, out)
    except Exception as exc:
        if not _record_failure(out, exc):
            raise
    _log_outcome(out, route.repo)
    return out


def _run_in_repository(
    deps: HandlerDeps,
    route: Route,
    handler: RepoHandler,
    payload: dict[str, Any],
    out: HandlerOutcome,
) -> None:
    """Load the repository's config, then run the route's handler (or report the config)."""
    assert route.repo is not None and out.number is not None  # repository routes have both
    session = deps.github(route.installation)
    repo = session.repo(route.repo)
    loaded = deps.config_cache.load(repo)
    ctx = RunContext(deps, session, repo, loaded.config or RepoConfig(), out)
    if loaded.error is not None or loaded.config is None:
        # Said on the items we would have labelled, and to a maintainer's command; a
        # merge being harvested or a command nobody may give only logs it.
        comment = payload.get("comment") or {}
        shown = route.kind in ("issue", "pull_request") or (
            route.kind == "comment" and may_command(ctx, comment)
        )
        ctx.report_config_error(out.number if shown else None, loaded)
        out.skipped = "invalid .github/spice.yml"
        return
    out.dry_run = ctx.dry_run
    handler(ctx, payload)


def _record_failure(out: HandlerOutcome, exc: Exception) -> bool:
    """Put an expected failure in `out` (retryable or not); False for anything else."""
    if isinstance(exc, GithubException):
        out.errors.append(describe(exc))
        out.retryable = is_transient(exc)
        if isinstance(exc, RetryAfterTooLong):
            out.retry_after_s = exc.wait_s
    elif isinstance(exc, requests.RequestException):
        out.errors.append(f"GitHub unreachable: {type(exc).__name__}: {exc}")
        out.retryable = True
    elif isinstance(exc, ModelCallError):
        out.errors.append(f"model: {exc}")
        out.retryable = exc.transient
    elif isinstance(exc, NoValidVotesError):
        # Every vote failed (provider down, malformed answers): another run may succeed,
        # unless the cost cap is what stopped it.
        out.errors.append(f"model: {exc}")
        out.retryable = not exc.capped
    elif isinstance(exc, CostCapExceeded | SpiceError | GitHubAuthError):
        out.errors.append(f"{type(exc).__name__}: {exc}")
    else:
        return False
    return True


def _log_outcome(out: HandlerOutcome, repo_name: str | None) -> None:
    where = f"delivery {out.delivery_id} {out.event}.{out.action} {repo_name}#{out.number}"
    if out.errors:
        log.error("%s failed: %s", where, out.errors)
    else:
        log.info("%s done: %s", where, out.skipped or out.comment_action)

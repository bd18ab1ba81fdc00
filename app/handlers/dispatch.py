"""A routed delivery -> its kind's handler (app.handlers.table) -> a `HandlerOutcome`.

Handlers return `Done` or raise `Skipped` / `Failed`; every failure is caught here, once, and
turned into the outcome's `Failure` (retryable or not): nothing fails silently."""

from __future__ import annotations

import logging
from typing import Any

import requests  # type: ignore[import-untyped]
from github import GithubException

from app.github.auth import GitHubAuthError
from app.github.repo_config import RepoConfig
from app.github.retries import RetryAfterTooLong, describe, is_transient
from app.handlers.comments import may_command
from app.handlers.deps import HandlerDeps
from app.handlers.outcome import Delivered, Done, Failed, Failure, HandlerOutcome, Skipped
from app.handlers.run_context import RunContext
from app.handlers.table import HANDLERS, PRE_FILTERS, Handler
from app.routing import INSTALLATION, Route, entry_of, route_payload
from app.webhook_envelope import InvalidPayload
from spice_engine.errors import CostCapExceeded, ModelCallError, NoValidVotesError, SpiceError

log = logging.getLogger(__name__)


def handle_delivery(
    event: str, payload: dict[str, Any], delivery_id: str, deps: HandlerDeps
) -> HandlerOutcome:
    """Route a delivery at this door (the Action, the CLI), then handle it."""
    action = payload.get("action")
    delivered = Delivered(
        event=event, action=action if isinstance(action, str) else None, delivery_id=delivery_id
    )
    try:
        route = route_payload(event, payload)
    except InvalidPayload as exc:  # not retryable: the payload will not change
        return HandlerOutcome(delivery=delivered, failure=Failure(message=str(exc)))
    if route is None:
        skipped = f"event {event}.{action} is not handled"
        return HandlerOutcome(delivery=delivered, dry_run=deps.dry_run, skipped=skipped)
    return handle_routed(route, payload, delivery_id, deps)


def handle_routed(
    route: Route, payload: dict[str, Any], delivery_id: str, deps: HandlerDeps
) -> HandlerOutcome:
    """Handle one delivery along its route (stored at the door: never decided again here).

    Callers must treat `not outcome.ok` as a failure (the worker retries when `retryable`,
    the Action exits non-zero).
    """
    delivered = Delivered(
        event=route.event,
        action=route.action,
        delivery_id=delivery_id,
        repo=route.repo,
        number=route.number,
    )
    outcome = HandlerOutcome(delivery=delivered, dry_run=deps.dry_run)
    entry_of(route.kind)  # a kind the table lost is UnknownKind, not a handler's KeyError
    try:
        if route.kind == INSTALLATION:
            raise Skipped("an installation change: applied by the App's door, not here")
        pre_filter = PRE_FILTERS.get(route.kind)
        if pre_filter is not None and (skip := pre_filter(payload)) is not None:
            raise Skipped(skip)  # no API call for what is not ours to handle
        done = _run_in_repository(deps, route, HANDLERS[route.kind], payload)
        outcome = outcome.model_copy(update={"done": done, "dry_run": done.dry_run})
    except Skipped as exc:
        outcome = outcome.model_copy(update={"skipped": exc.reason})
    except Exception as exc:
        failure = failure_of(exc)
        if failure is None:
            raise
        outcome = outcome.model_copy(update={"failure": failure})
    _log_outcome(outcome)
    return outcome


def _run_in_repository(
    deps: HandlerDeps, route: Route, handler: Handler, payload: dict[str, Any]
) -> Done:
    """Load the repository's config, then run the route's handler (or report the config)."""
    assert route.repo is not None and route.number is not None  # repository routes have both
    session = deps.github(route.installation)
    repo = session.repo(route.repo, _repo_id(payload))
    loaded = deps.config_cache.load(repo)
    ctx = RunContext(deps, session, repo, loaded.config or RepoConfig(), route.number)
    if loaded.error is not None or loaded.config is None:
        # Said on the items we would have labelled, and to a maintainer's command; a
        # merge being harvested or a command nobody may give only logs it.
        comment = payload.get("comment") or {}
        shown = route.kind in ("issue", "pull_request") or (
            route.kind == "comment" and may_command(ctx, comment)
        )
        raise ctx.report_config_error(route.number if shown else None, loaded)
    return handler(ctx, payload)


def _repo_id(payload: dict[str, Any]) -> int | None:
    """The repository's GitHub id, by which it is found again after a rename."""
    found = (payload.get("repository") or {}).get("id")
    return found if isinstance(found, int) and not isinstance(found, bool) and found > 0 else None


def failure_of(exc: Exception) -> Failure | None:
    """An expected failure as the outcome says it (retryable or not); None for anything else."""
    if isinstance(exc, Failed):
        return Failure(message=str(exc), retryable=exc.retryable, retry_after_s=exc.retry_after_s)
    if isinstance(exc, GithubException):
        wait = exc.wait_s if isinstance(exc, RetryAfterTooLong) else None
        return Failure(message=describe(exc), retryable=is_transient(exc), retry_after_s=wait)
    if isinstance(exc, requests.RequestException):
        return Failure(message=f"GitHub unreachable: {type(exc).__name__}: {exc}", retryable=True)
    if isinstance(exc, ModelCallError):
        return Failure(message=f"model: {exc}", retryable=exc.transient)
    if isinstance(exc, NoValidVotesError):
        # Every vote failed (provider down, malformed answers): another run may succeed,
        # unless the cost cap is what stopped it.
        return Failure(message=f"model: {exc}", retryable=not exc.capped)
    if isinstance(exc, CostCapExceeded | SpiceError | GitHubAuthError):
        return Failure(message=f"{type(exc).__name__}: {exc}")
    return None


def _log_outcome(outcome: HandlerOutcome) -> None:
    d = outcome.delivery
    where = f"delivery {d.delivery_id} {d.event}.{d.action} {d.repo}#{d.number}"
    if outcome.failure is not None:
        log.error("%s failed: %s", where, outcome.failure.message)
    elif outcome.done is not None:
        comment = outcome.done.comment
        log.info("%s done: %s", where, comment.action if comment else outcome.done.pipeline)
    else:
        log.info("%s done: %s", where, outcome.skipped)

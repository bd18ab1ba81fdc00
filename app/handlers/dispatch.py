"""The one entry point: a webhook delivery (event name + payload) -> a `HandlerOutcome`."""

from __future__ import annotations

import logging
from typing import Any

import requests  # type: ignore[import-untyped]
from github import GithubException

from app.github.auth import GitHubAuthError
from app.github.repo_config import RepoConfig
from app.github.retries import RetryAfterTooLong, describe, is_transient
from app.handlers.comments import handle_comment, may_command, parse_command
from app.handlers.corrections import could_be_ours, from_a_person, handle_label_change
from app.handlers.deps import HandlerDeps, HandlerOutcome
from app.handlers.issues import handle_issue
from app.handlers.merges import handle_merge
from app.handlers.pull_requests import handle_pull_request
from app.handlers.run_context import RunContext
from app.routing import InvalidPayload, Kind, route_payload
from spice_engine.errors import CostCapExceeded, ModelCallError, NoValidVotesError, SpiceError

log = logging.getLogger(__name__)


def _run(kind: Kind, ctx: RunContext, payload: dict[str, Any], number: int) -> None:
    if kind == "issue":
        handle_issue(ctx, number)
    elif kind == "pull_request":
        handle_pull_request(ctx, number)
    elif kind == "harvest":
        handle_merge(ctx, payload)
    elif kind == "label":
        handle_label_change(ctx, payload)
    else:
        handle_comment(ctx, payload)


def handle_delivery(
    event: str, payload: dict[str, Any], delivery_id: str, deps: HandlerDeps
) -> HandlerOutcome:
    """Handle one delivery; failures are caught HERE only, logged, and put in `errors`.

    Callers must treat `not outcome.ok` as a failure (the worker retries when `retryable`,
    the Action exits non-zero): nothing fails silently.
    """
    action = payload.get("action")
    out = HandlerOutcome(
        event=event,
        action=action if isinstance(action, str) else None,
        delivery_id=delivery_id,
        dry_run=deps.dry_run,
    )
    try:
        found = route_payload(event, payload)
    except InvalidPayload as exc:
        out.errors.append(str(exc))  # not retryable: the payload will not change
        return out
    if found is None or found.repo is None or found.number is None:
        out.skipped = f"event {event}.{action} is not handled"
        return out
    route, repo_name, out.repo, out.number = found.kind, found.repo, found.repo, found.number
    comment = payload.get("comment") or {}
    if route == "comment" and (comment.get("user") or {}).get("type") == "Bot":
        out.skipped = "comment by a bot"  # our own comments come back as events: no API calls
        return out
    if route == "label" and not from_a_person(payload):
        out.skipped = "label changed by a bot"  # our own label writes come back: no API calls
        return out
    if route == "label" and not could_be_ours(str((payload.get("label") or {}).get("name"))):
        out.skipped = "not a label of ours"
        return out
    if route == "comment" and parse_command(comment.get("body") or "") is None:
        out.skipped = "no /spice command in the comment"  # most comments: no API calls either
        return out
    try:
        _run_in_repository(deps, route, payload, found.repo, out)
    except Exception as exc:
        if not _record_failure(out, exc):
            raise
    _log_outcome(out, repo_name)
    return out


def _run_in_repository(
    deps: HandlerDeps, route: Kind, payload: dict[str, Any], repo_name: str, out: HandlerOutcome
) -> None:
    """Load the repository's config, then run the route's handler (or report the config)."""
    installation = (payload.get("installation") or {}).get("id")
    session = deps.github(installation)
    repo = session.repo(repo_name)
    loaded = deps.config_cache.load(repo)
    ctx = RunContext(deps, session, repo, loaded.config or RepoConfig(), out)
    if loaded.error is not None or loaded.config is None:
        # Said on the items we would have labelled, and to a maintainer's command; a
        # merge being harvested or a command nobody may give only logs it.
        comment = payload.get("comment") or {}
        shown = route in ("issue", "pull_request") or (
            route == "comment" and may_command(ctx, comment)
        )
        ctx.report_config_error(out.number if shown else None, loaded)
        out.skipped = "invalid .github/spice.yml"
        return
    out.dry_run = ctx.dry_run
    assert out.number is not None  # routed items always have one
    _run(route, ctx, payload, out.number)


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
        out.retryable = not any("cost cap" in e for e in exc.errors)
    elif isinstance(exc, CostCapExceeded | SpiceError | GitHubAuthError):
        out.errors.append(f"{type(exc).__name__}: {exc}")
    else:
        return False
    return True


def _log_outcome(out: HandlerOutcome, repo_name: str) -> None:
    where = f"delivery {out.delivery_id} {out.event}.{out.action} {repo_name}#{out.number}"
    if out.errors:
        log.error("%s failed: %s", where, out.errors)
    else:
        log.info("%s done: %s", where, out.skipped or out.comment_action)

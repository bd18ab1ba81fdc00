"""The one entry point: a webhook delivery (event name + payload) -> a `HandlerOutcome`."""

from __future__ import annotations

import logging
from typing import Any

import requests  # type: ignore[import-untyped]
from github import GithubException

from app.github.auth import GitHubAuthError
from app.github.retries import RetryAfterTooLong, is_transient
from app.handlers.comments import handle_comment, may_command, parse_command
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
    if route == "comment" and parse_command(comment.get("body") or "") is None:
        out.skipped = "no /spice command in the comment"  # most comments: no API calls either
        return out
    installation = (payload.get("installation") or {}).get("id")
    try:
        session = deps.github(installation)
        repo = session.repo(repo_name)
        loaded = deps.config_cache.load(repo)
        ctx_config = loaded.config
        ctx = RunContext(deps, session, repo, ctx_config or _fallback(), out)
        if loaded.error is not None or ctx_config is None:
            # Said on the items we would have labelled, and to a maintainer's command; a
            # merge being harvested or a command nobody may give only logs it.
            shown = route in ("issue", "pull_request") or (
                route == "comment" and may_command(ctx, comment)
            )
            ctx.report_config_error(out.number if shown else None, loaded)
            out.skipped = "invalid .github/spice.yml"
            return out
        out.dry_run = ctx.dry_run
        _run(route, ctx, payload, out.number)
    except GithubException as exc:
        out.errors.append(f"GitHub API error {exc.status}: {exc.message or exc.data}")
        out.retryable = is_transient(exc)
        if isinstance(exc, RetryAfterTooLong):
            out.retry_after_s = exc.wait_s
    except requests.RequestException as exc:
        out.errors.append(f"GitHub unreachable: {type(exc).__name__}: {exc}")
        out.retryable = True
    except ModelCallError as exc:
        out.errors.append(f"model: {exc}")
        out.retryable = exc.transient
    except NoValidVotesError as exc:
        # Every vote failed (provider down, malformed answers): another run may succeed,
        # unless the cost cap is what stopped it.
        out.errors.append(f"model: {exc}")
        out.retryable = not any("cost cap" in e for e in exc.errors)
    except (CostCapExceeded, SpiceError, GitHubAuthError) as exc:
        out.errors.append(f"{type(exc).__name__}: {exc}")
    if out.errors:
        log.error(
            "delivery %s %s.%s %s#%s failed: %s",
            delivery_id,
            event,
            action,
            repo_name,
            out.number,
            out.errors,
        )
    else:
        log.info(
            "delivery %s %s.%s %s#%s done: %s",
            delivery_id,
            event,
            action,
            repo_name,
            out.number,
            out.skipped or out.comment_action,
        )
    return out


def _fallback() -> Any:
    from app.github.repo_config import RepoConfig

    return RepoConfig()

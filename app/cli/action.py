"""`spice action`: run the handlers on the workflow's triggering event (GitHub Action mode)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Annotated, Any

import typer

from app.cli.common import fail, settings_with, setup_logging


def _required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        fail(f"{name} is not set: `spice action` runs inside a GitHub Actions workflow", code=2)
    return value


def _fork_of(event: str, payload: dict[str, Any]) -> str | None:
    """The fork a `pull_request` run comes from, if any (`pull_request_target` runs in the
    base repository with its token and secrets, so it is not skipped)."""
    if event != "pull_request":
        return None
    base = (payload.get("repository") or {}).get("full_name")
    head = ((payload.get("pull_request") or {}).get("head") or {}).get("repo")
    if head is None:
        return "a deleted fork"
    name = head.get("full_name")
    return str(name) if name and name != base else None


def _skip(reason: str) -> None:
    """A notice on the run's summary instead of a red check, and the reason as the output."""
    typer.echo(f"::notice title=SPICE Triage skipped::{reason}")
    text = json.dumps({"ok": True, "skipped": reason})
    if os.environ.get("GITHUB_OUTPUT"):
        write_output(os.environ["GITHUB_OUTPUT"], "json", text)


def write_output(path: str, name: str, value: str) -> None:
    """Append a (multi-line) step output to $GITHUB_OUTPUT with a delimiter no value contains."""
    delimiter = f"spice_{secrets.token_hex(8)}"
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def action(
    model: Annotated[str | None, typer.Option(help="litellm model string.")] = None,
    api_base: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL.")] = None,
    votes: Annotated[int | None, typer.Option(min=1, max=15, help="Votes per label (k).")] = None,
    dry_run: Annotated[bool, typer.Option(help="Compute and report; write nothing.")] = False,
    checkout: Annotated[
        Path | None, typer.Option(help="Repository checkout at the PR base, for PR context.")
    ] = None,
) -> None:
    """Triage the event in $GITHUB_EVENT_PATH; JSON on stdout and in $GITHUB_OUTPUT (`json`).

    Exits non-zero on any failure (GitHub or model errors, an invalid .github/spice.yml).
    """
    from app.github.auth import GitHubAuthError
    from app.handlers.deps import default_deps
    from app.handlers.dispatch import handle_delivery

    event = _required_env("GITHUB_EVENT_NAME")
    event_path = Path(_required_env("GITHUB_EVENT_PATH"))
    token = _required_env("GITHUB_TOKEN")
    settings = settings_with(
        model=model,
        api_base=api_base,
        votes=votes,
        github_token=token,
        github_api_url=os.environ.get("GITHUB_API_URL"),
    )
    setup_logging(settings.log_level, settings.log_format)
    try:
        payload: dict[str, Any] = json.loads(event_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        fail(f"cannot read the event payload {event_path}: {exc}", code=2)
    fork = _fork_of(event, payload)
    if fork:
        _skip(
            f"pull request from the fork {fork}: GitHub gives such runs a read-only token and "
            "no secrets (see the Action's docs: pull_request_target)"
        )
        return
    delivery = f"action-{os.environ.get('GITHUB_RUN_ID', 'local')}-{os.environ.get('GITHUB_RUN_ATTEMPT', '1')}"
    try:
        # The workflow checks the repository out itself (checkout-path); without one, the
        # patches only, as documented.
        deps = default_deps(settings, dry_run, checkout_dir=checkout, clones=False)
    except GitHubAuthError as exc:
        fail(str(exc), code=2)
    outcome = handle_delivery(event, payload, delivery, deps)
    text = outcome.model_dump_json()
    typer.echo(text)
    if os.environ.get("GITHUB_OUTPUT"):
        write_output(os.environ["GITHUB_OUTPUT"], "json", text)
    if outcome.failure is not None:
        fail(outcome.failure.message)

"""One redaction for every place text leaves a process: logs, stored errors and comments.

A provider error can echo the API key it was sent; a git error can quote a token. What is
redacted: every configured secret (settings and secret-named environment variables) and
anything shaped like a well-known key, whoever's it is. A configured PEM key is also searched
for line by line: an error may quote part of it, or all of it with its newlines escaped.
How text is redacted, and cut only after that, is the engine's `spice_engine.redaction`; here
are the App's secrets, the log filter and the engine's results made safe to keep.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from app.settings import Settings
from spice_engine.redaction import (
    REDACTED,
    env_secret_values,
    pem_fragments,
    redact,
    redacted_excerpt,
    searched_values,
)

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "env_secret_values",
    "install_redaction",
    "pem_fragments",
    "redact",
    "redacted_excerpt",
    "redacted_outcome",
    "secret_values",
]


def secret_values(settings: Settings) -> tuple[str, ...]:
    """The settings' secrets and secret-named environment values, longest first."""
    values = [
        v.get_secret_value()
        for v in (
            settings.api_key,
            settings.webhook_secret,
            settings.github_token,
            settings.github_private_key,
            settings.dashboard_session_key,
        )
        if v is not None
    ]
    return searched_values(
        [*values, *_key_file(settings.github_private_key_path), *env_secret_values()]
    )


def _key_file(path: Path | None) -> list[str]:
    if path is None:
        return []
    try:
        return [path.read_text(encoding="utf-8", errors="replace")]
    except OSError:
        return []  # unreadable: the App's sign-in reports it; nothing of it can leak here


def redacted_outcome(row: dict[str, Any], part: str, secrets: tuple[str, ...]) -> dict[str, Any]:
    """`row` with `spice.<part>.detail` (`validation`, `test_strength`) redacted, before it is
    written, stored or shown. The engine cut that detail where we could not see: its ends are
    taken for cuts, so what a cut left of a secret there goes too (`redact`'s `cut_edges`)."""
    spice = row.get("spice")
    if not isinstance(spice, dict):
        return row
    outcome = spice.get(part)
    if not isinstance(outcome, dict) or not isinstance(outcome.get("detail"), str):
        return row
    detail = redact(outcome["detail"], secrets, cut_edges=True)
    return row | {"spice": spice | {part: outcome | {"detail": detail}}}


class RedactingFilter(logging.Filter):
    """Redacts each record's final message (and its traceback) before any handler sees it."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.secrets = secrets

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message, self.secrets)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        return True


def install_redaction(handler: logging.Handler, secrets: tuple[str, ...]) -> None:
    """Put one `RedactingFilter` on `handler` (again: its secrets are replaced)."""
    for existing in [f for f in handler.filters if isinstance(f, RedactingFilter)]:
        handler.removeFilter(existing)
    handler.addFilter(RedactingFilter(secrets))

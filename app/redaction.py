"""One redaction for every place text leaves a process: logs, stored errors and comments.

A provider error can echo the API key it was sent; a git error can quote a token. What is
redacted: every configured secret (settings and secret-named environment variables) and
anything shaped like a well-known key, whoever's it is.
"""

from __future__ import annotations

import logging
import os
import re

from app.settings import Settings

REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PRIVATE", re.IGNORECASE)
_KEY_SHAPES = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    r"|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"  # OpenAI, Anthropic (sk-ant-...), Stripe-like
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API key
    r"|(?i:\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}",
    re.DOTALL,
)
MIN_SECRET_LENGTH = 8
"""Shorter values are not searched for: they would redact ordinary words."""


def env_secret_values() -> tuple[str, ...]:
    """Values of secret-named environment variables (`SPICE_API_KEY`, `*_TOKEN`, ...)."""
    return _longest_first([v for k, v in os.environ.items() if _SECRET_NAME.search(k)])


def secret_values(settings: Settings) -> tuple[str, ...]:
    """The settings' secrets and secret-named environment values, longest first."""
    values = [
        v.get_secret_value()
        for v in (
            settings.api_key,
            settings.webhook_secret,
            settings.github_token,
            settings.github_private_key,
        )
        if v is not None
    ]
    return _longest_first([*values, *env_secret_values()])


def _longest_first(values: list[str]) -> tuple[str, ...]:
    # Longest first: a secret containing another is replaced whole.
    return tuple(sorted({v for v in values if len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True))


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with every secret and key-shaped string replaced by `[redacted]`."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


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

"""Logging set-up for every process (CLI commands, web and queue workers): one format, one
redaction, and the noisy libraries quietened."""

from __future__ import annotations

import logging
import sys

from app.log_format import log_formatter
from app.redaction import env_secret_values, install_redaction

QUIET = ("LiteLLM", "litellm", "httpx", "httpcore", "openai", "alembic")
"""They log request bodies at INFO/DEBUG (prompts stay out of our logs), or every step of a
schema migration on every start."""


def configure_logging(level: str, kind: str = "text", secrets: tuple[str, ...] = ()) -> None:
    """Root logging to stderr in `kind`, every line redacted (`secrets` and the
    environment's secret-named values, and anything shaped like a key)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(log_formatter(kind))
    install_redaction(handler, tuple({*secrets, *env_secret_values()}))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    for noisy in QUIET:
        logging.getLogger(noisy).setLevel(logging.WARNING)


def format_handlers(logger_names: tuple[str, ...], kind: str) -> None:
    """Put our format and redaction on the handlers of loggers configured elsewhere
    (gunicorn's and uvicorn's own)."""
    secrets = env_secret_values()
    for name in logger_names:
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(log_formatter(kind))
            install_redaction(handler, secrets)

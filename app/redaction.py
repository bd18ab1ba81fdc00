"""One redaction for every place text leaves a process: logs, stored errors and comments.

A provider error can echo the API key it was sent; a git error can quote a token. What is
redacted: every configured secret (settings and secret-named environment variables) and
anything shaped like a well-known key, whoever's it is. A configured PEM key is also searched
for line by line: an error may quote part of it, or all of it with its newlines escaped.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

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
MIN_PEM_LINE = 16
"""A PEM key's body lines at least this long are searched for on their own (the last line of
a body may be a few characters: those would redact ordinary text)."""
_PEM_BODY_LINE = re.compile(rf"[A-Za-z0-9+/=]{{{MIN_PEM_LINE},}}")


def env_secret_values() -> tuple[str, ...]:
    """Values of secret-named environment variables (`SPICE_API_KEY`, `*_TOKEN`, ...)."""
    return _searched([v for k, v in os.environ.items() if _SECRET_NAME.search(k)])


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
    return _searched([*values, *_key_file(settings.github_private_key_path), *env_secret_values()])


def _key_file(path: Path | None) -> list[str]:
    if path is None:
        return []
    try:
        return [path.read_text(encoding="utf-8", errors="replace")]
    except OSError:
        return []  # unreadable: the App's sign-in reports it; nothing of it can leak here


def pem_fragments(value: str) -> list[str]:
    """Pieces of a PEM key that text may quote without the rest: each body line, and the body
    on one line (a key pasted with its newlines removed). Nothing for other values."""
    if "-----BEGIN" not in value:
        return []
    # An environment variable often holds the key with `\n` escapes instead of newlines.
    lines = value.replace("\\n", "\n").splitlines()
    body = [line.strip() for line in lines if _PEM_BODY_LINE.fullmatch(line.strip())]
    return [*body, "".join(body)] if body else []


def _searched(values: list[str]) -> tuple[str, ...]:
    """What `redact` searches for: the values and their PEM fragments, longest first (a secret
    containing another is replaced whole)."""
    every = [*values, *(part for v in values for part in pem_fragments(v))]
    return tuple(sorted({v for v in every if len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True))


MIN_FRAGMENT = 4
"""A secret's head or tail at least this long, left at a cut, is redacted too."""
_CUT = re.compile(r"\[\.\.\. \d+ (?:characters|bytes of output cut) \.\.\.\]|…")
"""Where our own excerpts cut text (spice_engine's `excerpt`, the sandbox's output cap)."""
_KEY_HEAD = re.compile(
    r"(?:\b(?:sk|pk|rk)-[A-Za-z0-9_-]*|\bgh[pousr]_[A-Za-z0-9]*|\bgithub_pat_[A-Za-z0-9_]*"
    r"|\bxox[abposr]-[A-Za-z0-9-]*|\bAKIA[0-9A-Z]*|\bAIza[0-9A-Za-z_-]*)\Z"
)
"""The start of a key shape, at the very end of a piece: what a cut leaves of a token."""


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with every secret and key-shaped string replaced by `[redacted]`, and what a
    cut may have left of one: a secret's head at the end of a piece of text (before a cut
    marker, or at its very end), its tail at the start of one. Text is often cut before it
    reaches here (an excerpt of a log, a stored error's last characters)."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _KEY_SHAPES.sub(REDACTED, text)
    pieces = _CUT.split(text)
    if not secrets and len(pieces) == 1 and not _KEY_HEAD.search(text):
        return text
    cuts = _CUT.findall(text)
    cleaned = [_redact_edges(piece, secrets) for piece in pieces]
    return "".join(p + (cuts[i] if i < len(cuts) else "") for i, p in enumerate(cleaned))


def shortened(text: str, secrets: tuple[str, ...], head: int = 0, tail: int = 0) -> str:
    """`text` redacted, then cut to its first `head` or last `tail` characters: the one order
    in which no part of a secret survives the cut."""
    text = redact(text, secrets)
    if head and len(text) > head:
        return text[:head] + "…"
    if tail and len(text) > tail:
        return "…" + text[-tail:]
    return text


def _head_left(piece: str, secret: str) -> int:
    """How many characters at the end of `piece` are the start of `secret` (0: none)."""
    start = max(0, len(piece) - len(secret) + 1)
    while (at := piece.find(secret[:MIN_FRAGMENT], start)) != -1:
        if secret.startswith(piece[at:]):
            return len(piece) - at
        start = at + 1
    return 0


def _tail_left(piece: str, secret: str) -> int:
    """How many characters at the start of `piece` are the end of `secret` (0: none)."""
    end = min(len(piece), len(secret) - 1)
    found, start = 0, 0
    while (at := piece.find(secret[-MIN_FRAGMENT:], start, end)) != -1:
        if secret.endswith(piece[: at + MIN_FRAGMENT]):
            found = at + MIN_FRAGMENT
        start = at + 1
    return found


def _redact_edges(piece: str, secrets: tuple[str, ...]) -> str:
    """`piece` with a secret's head at its end or its tail at its start redacted (the
    whitespace a cut marker or a line end puts around them kept)."""
    lead = len(piece) - len(piece.lstrip())
    core = piece.strip()
    head, tail = 0, len(core)
    for secret in secrets:
        if len(secret) > MIN_FRAGMENT:
            tail = min(tail, len(core) - _head_left(core, secret))
            head = max(head, _tail_left(core, secret))
    if (m := _KEY_HEAD.search(core[:tail])) and len(m.group(0)) >= MIN_FRAGMENT:
        tail = m.start()
    if (head, tail) == (0, len(core)):
        return piece
    middle = (
        REDACTED
        if head >= tail
        else ((REDACTED if head else "") + core[head:tail] + (REDACTED if tail < len(core) else ""))
    )
    return piece[:lead] + middle + piece[lead + len(core) :]


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

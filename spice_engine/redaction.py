"""Secrets out of text before it is kept, shown or logged; text is cut only after that.

What is redacted: the secret values a caller names (the App's configured keys; in the engine,
which has no settings, the values of secret-named environment variables) and anything shaped
like a well-known key, whoever's it is. Cutting first would split a secret into pieces no
search finds, so `redacted_excerpt` is the one way to shorten such text. Text someone else cut
may still hold such a piece at its ends or next to a cut marker: `redact` takes those too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

REDACTED = "[redacted]"
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PRIVATE", re.IGNORECASE)
KEY_SHAPES = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    r"|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"  # OpenAI, Anthropic (sk-ant-...), Stripe-like
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API key
    r"|(?i:\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}",
    re.DOTALL,
)
KEY_START = re.compile(
    r"(?:\bgh[pousr]_|\bgithub_pat_|\b(?:sk|pk|rk)-|\bxox[abposr]-|\bAKIA|\bAIza|(?i:\bbearer\s+))"
    r"[A-Za-z0-9._~+/=-]*\Z"
)
"""A key's recognisable start with the rest cut off: too short for `KEY_SHAPES`."""
CUT_MARKER = re.compile(r"\[\.\.\. [^\[\]\n]{1,200} \.\.\.\]")
"""How cut text says where it was cut (`[... 300 characters ...]`, the sandbox's
`[... 4096 bytes of output cut ...]`): the text on either side of it ends mid-word."""
MIN_SECRET_LENGTH = 8
"""Shorter values are not searched for: they would redact ordinary words."""
MIN_FRAGMENT = 4
"""A piece of a secret this long at a cut is redacted; a shorter one is left (3 characters of
a random value tell nothing, and would redact ordinary text)."""
MIN_PEM_LINE = 16
"""A PEM key's body lines at least this long are searched for on their own (the last line of
a body may be a few characters: those would redact ordinary text)."""
_PEM_BODY_LINE = re.compile(rf"[A-Za-z0-9+/=]{{{MIN_PEM_LINE},}}")
_ALNUM = re.compile(r"[A-Za-z0-9]")
"""A piece of a secret with none (a PEM key's `-----`) tells nothing: it stays."""
_LEADING_RUN = re.compile(rf"\A[A-Za-z0-9_-]{{{MIN_FRAGMENT},}}")
_ORDINARY = re.compile(r"[a-z]*|[A-Z]*|[0-9]*|[A-Z][a-z]+|(?:[A-Z]+[a-z]{2,})+")
"""A lower-case word, an upper-case one, a number, a Name or a CamelCase name."""


def env_secret_values() -> tuple[str, ...]:
    """Values of secret-named environment variables (`SPICE_API_KEY`, `*_TOKEN`, ...)."""
    return searched_values([v for k, v in os.environ.items() if SECRET_NAME.search(k)])


def pem_fragments(value: str) -> list[str]:
    """Pieces of a PEM key that text may quote without the rest: each body line, and the body
    on one line (a key pasted with its newlines removed). Nothing for other values."""
    if "-----BEGIN" not in value:
        return []
    # An environment variable often holds the key with `\n` escapes instead of newlines.
    lines = value.replace("\\n", "\n").splitlines()
    body = [line.strip() for line in lines if _PEM_BODY_LINE.fullmatch(line.strip())]
    return [*body, "".join(body)] if body else []


def searched_values(values: Iterable[str]) -> tuple[str, ...]:
    """What `redact` searches for: the values and their PEM fragments, longest first (a secret
    containing another is replaced whole)."""
    values = list(values)
    every = [*values, *(part for v in values for part in pem_fragments(v))]
    return tuple(sorted({v for v in every if len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True))


def redact(text: str, secrets: tuple[str, ...] = (), *, cut_edges: bool = False) -> str:
    """`text` with every secret and key-shaped string replaced by `[redacted]`, and pieces of
    them where text was cut: at the text's ends and beside each cut marker, a piece of a named
    secret (`MIN_FRAGMENT` characters or more) and a key's start cut short.

    `cut_edges`: the text's ends are cuts someone else made (an engine's detail, cut before it
    reached us): a word there that looks like key material (letters and digits mixed) is taken
    as the rest of a key whose recognisable start was cut away.
    """
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = KEY_SHAPES.sub(REDACTED, text)
    parts = CUT_MARKER.split(text)
    last = len(parts) - 1
    out = [
        _clean_ends(part, secrets, cut_before=cut_edges or i > 0, cut_after=cut_edges or i < last)
        for i, part in enumerate(parts)
    ]
    return "".join(p + m for p, m in zip(out, [*CUT_MARKER.findall(text), ""], strict=True))


def redacted_excerpt(
    text: str,
    head: int = 0,
    tail: int = 0,
    secrets: tuple[str, ...] | None = None,
    *,
    cut_edges: bool = False,
    marker: str | None = None,
) -> str:
    """The first `head` and last `tail` characters of `text` once redacted, with a marker
    saying how much was cut between (`marker` instead, when given). `secrets`: the values to
    redact; None: the secret-named environment variables' (all the engine knows of).
    `cut_edges`: as for `redact`, when `text` itself comes from a cut made elsewhere."""
    if head < 0 or tail < 0 or head + tail == 0:
        raise ValueError(f"nothing to keep: head={head}, tail={tail}")
    values = env_secret_values() if secrets is None else secrets
    clean = redact(text, values, cut_edges=cut_edges)
    if len(clean) <= head + tail:
        return clean
    start, end = _outside_redactions(clean, head, len(clean) - tail)
    if marker is None:
        gap = f"[... {end - start} characters ...]"
        marker = ("\n" if head else "") + gap + ("\n" if tail else "")
    return clean[:start].rstrip() + marker + clean[end:]


def _outside_redactions(text: str, start: int, end: int) -> tuple[int, int]:
    """The cut `text[start:end]` widened so that no `[redacted]` is cut in two."""
    for found in re.finditer(re.escape(REDACTED), text):
        if found.start() < start < found.end():
            start = found.start()
        if found.start() < end < found.end():
            end = found.end()
    return start, max(start, end)


def _clean_ends(piece: str, secrets: tuple[str, ...], cut_before: bool, cut_after: bool) -> str:
    """`piece` (text between cuts, or the ends of the text) with what a cut may have left of
    a secret at its ends redacted; `cut_before`/`cut_after`: that end is certainly a cut."""
    body = piece.strip()
    if not body:
        return piece
    lead = piece[: len(piece) - len(piece.lstrip())]
    trail = piece[len(piece.rstrip()) :]
    if cut_before and cut_after and len(body) >= MIN_FRAGMENT and any(body in s for s in secrets):
        return lead + REDACTED + trail  # the middle of a secret, cut at both ends
    cut_start = max((_suffix_at_start(body, s) for s in secrets), default=0)
    if not cut_start and cut_before and (run := _LEADING_RUN.match(body)):
        cut_start = run.end() if _looks_random(run.group(0)) else 0
    if cut_start:
        body = REDACTED + body[cut_start:]
    cut_end = max((_prefix_at_end(body, s) for s in secrets), default=0)
    if cut_end:
        body = body[:-cut_end] + REDACTED
    elif started := KEY_START.search(body):
        body = body[: started.start()] + REDACTED
    return lead + body + trail


def _suffix_at_start(text: str, secret: str) -> int:
    """Length of the longest end of `secret` (not all of it, at least `MIN_FRAGMENT` long)
    that `text` starts with; 0 for none."""
    at = secret.find(text[0], 1)
    while at != -1 and len(secret) - at >= MIN_FRAGMENT:
        if text.startswith(secret[at:]) and _ALNUM.search(secret[at:]):
            return len(secret) - at
        at = secret.find(text[0], at + 1)
    return 0


def _prefix_at_end(text: str, secret: str) -> int:
    """Length of the longest start of `secret` (not all of it, at least `MIN_FRAGMENT` long)
    that `text` ends with; 0 for none."""
    at = secret.rfind(text[-1], 0, len(secret) - 1)
    while at + 1 >= MIN_FRAGMENT:
        if text.endswith(secret[: at + 1]) and _ALNUM.search(secret[: at + 1]):
            return at + 1
        at = secret.rfind(text[-1], 0, at)
    return 0


def _looks_random(word: str) -> bool:
    """Not a word, a number or a name (`ModuleNotFoundError`, `base_commit`): key material, or
    a word cut in two (nothing is lost by redacting half a word)."""
    return not all(_ORDINARY.fullmatch(part) for part in re.split(r"[_-]", word))

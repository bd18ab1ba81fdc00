"""Make issue or model text safe to show in our comment: no pings, links, HTML or forged markers."""

from __future__ import annotations

import html
import re

from app.redaction import redacted_excerpt
from spice_engine.text_cleaning import strip_invisible

MARKER_WORD = "spice-triage"
ZWJ = "\u200d"
_MENTION = re.compile(r"@(?=[A-Za-z0-9_])")
# GitHub turns bare `https://…`, `http://…` and `www.…` into links: a joiner after the scheme
# or the `www` keeps the address readable but not clickable (nor a phishing link).
_AUTOLINK = re.compile(r"\b(https?|ftp|www)(?=://|\.)", re.IGNORECASE)
# Backslash-escaping markdown punctuation keeps text literal: no headings, fences, tables,
# links or emphasis can be opened by the reporter or the model.
_MARKDOWN = re.compile(r"([\\`*_\[\]#|~>!])")
_SPACE_RUNS = re.compile(r"\s+")


def neutralise(text: str, limit: int = 1000, secrets: tuple[str, ...] = ()) -> str:
    """One line of inert text: secrets redacted, HTML escaped, mentions and markers broken."""
    # Invisible characters go first: one inside a key would hide it from the redaction.
    text = _SPACE_RUNS.sub(" ", strip_invisible(text)).strip()
    text = redacted_excerpt(text, head=limit - 1, secrets=secrets, marker="…")
    text = html.escape(text, quote=False)
    text = _MARKDOWN.sub(r"\\\1", text)
    text = _MENTION.sub("@" + ZWJ, text)
    text = _AUTOLINK.sub(lambda m: m.group(1) + ZWJ, text)
    return re.sub(MARKER_WORD, "spice" + ZWJ + "-triage", text, flags=re.IGNORECASE)


def code_span(text: str, limit: int = 80) -> str:
    """Inline code: GitHub shows its content literally (no HTML, no mentions, no markdown)."""
    text = _SPACE_RUNS.sub(" ", strip_invisible(text)).replace("`", "'").strip()
    text = redacted_excerpt(text, head=limit, secrets=(), marker="")
    return f"`{text}`" if text else "`(root)`"


def code_block(
    text: str, language: str = "", limit: int = 3000, secrets: tuple[str, ...] = ()
) -> str:
    """A fenced block GitHub shows literally: its fence longer than any backtick run inside,
    secrets redacted, our marker word broken (the sticky comment is found by it)."""
    text = redacted_excerpt(strip_invisible(text), head=limit, secrets=secrets, marker="\n…")
    text = re.sub(MARKER_WORD, "spice" + ZWJ + "-triage", text, flags=re.IGNORECASE)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"

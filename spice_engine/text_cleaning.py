"""Issue markdown to plain text for a model: code kept, images and raw HTML dropped, size capped."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from markdown_it.token import Token
from pydantic import BaseModel

from spice_engine.markdown_parser import issue_markdown

# Bidi overrides/isolates and zero-width characters can disguise text; C0/C1 controls corrupt logs.
_INVISIBLE = re.compile(
    "[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_BLANK_RUNS = re.compile(r"\n{3,}")
_TAG_NAME = re.compile(r"<\s*/?\s*([A-Za-z][A-Za-z0-9-]*)")
# Real HTML elements are dropped; other angle-bracket words (`<module>` in a traceback,
# `List<String>`) are text the reporter meant.
_HTML_ELEMENTS = frozenset(
    [
        "a",
        "abbr",
        "address",
        "area",
        "article",
        "aside",
        "audio",
        "b",
        "base",
        "bdi",
        "bdo",
        "blockquote",
        "body",
        "br",
        "button",
        "canvas",
        "caption",
        "cite",
        "code",
        "col",
        "colgroup",
        "data",
        "dd",
        "del",
        "details",
        "dfn",
        "dialog",
        "div",
        "dl",
        "dt",
        "em",
        "embed",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "header",
        "hr",
        "html",
        "i",
        "iframe",
        "img",
        "input",
        "ins",
        "kbd",
        "label",
        "legend",
        "li",
        "link",
        "main",
        "map",
        "mark",
        "meta",
        "meter",
        "nav",
        "noscript",
        "object",
        "ol",
        "optgroup",
        "option",
        "output",
        "p",
        "param",
        "picture",
        "pre",
        "progress",
        "q",
        "rp",
        "rt",
        "ruby",
        "s",
        "samp",
        "script",
        "section",
        "select",
        "small",
        "source",
        "span",
        "strong",
        "style",
        "sub",
        "summary",
        "sup",
        "svg",
        "table",
        "tbody",
        "td",
        "template",
        "textarea",
        "tfoot",
        "th",
        "thead",
        "time",
        "title",
        "tr",
        "track",
        "u",
        "ul",
        "var",
        "video",
        "wbr",
        "math",
        "frame",
        "frameset",
        "marquee",
        "center",
        "font",
    ]
)
_RAW_CAP_FACTOR = 8


class CleanText(BaseModel):
    """Cleaned text and whether (and how much) it was cut."""

    text: str
    truncated: bool
    original_chars: int
    omitted_chars: int = 0


def strip_invisible(text: str) -> str:
    """Remove control, bidi and zero-width characters; normalise newlines and to NFC."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", _INVISIBLE.sub("", text))


def truncate_middle(text: str, max_chars: int) -> tuple[str, int]:
    """Keep the head and the tail (a traceback's end matters most), with a visible marker."""
    if len(text) <= max_chars:
        return text, 0
    head = int(max_chars * 0.6)
    tail = max_chars - head
    omitted = len(text) - head - tail
    marker = f"\n\n[... {omitted} characters omitted by SPICE: the issue is too long ...]\n\n"
    return text[:head] + marker + text[-tail:], omitted


def _is_html(fragment: str) -> bool:
    """True for comments, doctypes and tags of real HTML elements."""
    stripped = fragment.lstrip()
    if stripped.startswith(("<!--", "<!", "<?")):
        return True
    names = _TAG_NAME.findall(stripped)
    return bool(names) and all(n.lower() in _HTML_ELEMENTS for n in names)


def _inline_text(children: Sequence[Token]) -> str:
    out: list[str] = []
    href_stack: list[str] = []
    for tok in children:
        if tok.type == "text":
            out.append(tok.content)
        elif tok.type == "code_inline":
            out.append(f"`{tok.content}`")
        elif tok.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif tok.type == "link_open":
            href_stack.append(str(tok.attrs.get("href", "")))
        elif tok.type == "link_close":
            href = href_stack.pop() if href_stack else ""
            if href and not "".join(out).endswith(href):
                out.append(f" ({href})")
        elif tok.type == "html_inline" and not _is_html(tok.content):
            out.append(tok.content)
        # images and real HTML carry no text worth keeping
    return "".join(out)


def markdown_to_text(markdown: str) -> str:
    """Plain text with fenced/indented code kept verbatim inside ``` fences."""
    blocks: list[str] = []
    prefix = ""
    for tok in issue_markdown().parse(markdown):
        if tok.type in ("fence", "code_block"):
            info = tok.info.strip().split(" ")[0] if tok.type == "fence" else ""
            body = tok.content.replace("```", "'''")  # an inner fence must not close ours
            blocks.append(f"```{info}\n{body.rstrip()}\n```")
        elif tok.type == "list_item_open":
            prefix = "- "
        elif tok.type == "inline":
            text = _inline_text(tok.children or []).strip()
            if text:
                blocks.append(prefix + text)
            prefix = ""
        elif tok.type == "html_block" and not _is_html(tok.content):
            blocks.append(tok.content.strip())
        elif tok.type == "hr":
            blocks.append("---")
        # html_block and structural open/close tokens are dropped
    return _BLANK_RUNS.sub("\n\n", "\n\n".join(blocks)).strip()


def clean_issue_text(markdown: str, max_chars: int = 16000) -> CleanText:
    """The text a model sees for an issue body."""
    original = len(markdown)
    raw = strip_invisible(markdown)
    # Parsing megabytes of pasted logs is wasted work: cap the raw text first, generously.
    raw, _ = truncate_middle(raw, max_chars * _RAW_CAP_FACTOR)
    text = markdown_to_text(raw)
    text, omitted = truncate_middle(text, max_chars)
    truncated = omitted > 0 or len(raw) < len(markdown.replace("\r\n", "\n")) - 1000
    return CleanText(
        text=text,
        truncated=truncated,
        original_chars=original,
        omitted_chars=max(omitted, original - len(raw)) if truncated else 0,
    )

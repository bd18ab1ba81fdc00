"""Split issue markdown into prose, code blocks, inline code and links via markdown-it-py tokens."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from markdown_it.token import Token

from spice_engine.markdown_parser import issue_markdown

MAX_ANALYSED_CHARS = 40_000
"""Longer bodies are analysed on their head only: signals stay bounded in time."""
MAX_TOKEN_CHARS = 160
"""Longer runs without spaces keep their head and tail (a path's file name is at its end)."""
_LONG_RUN = re.compile(rf"\S{{{MAX_TOKEN_CHARS},}}")

CodeOrigin = Literal["fence", "indented", "unfenced"]

_URL = re.compile(r"https?://[^\s<>()\[\]`'\"]+[^\s<>()\[\]`'\".,;:!?]")
_HTML_COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.S)

# Shapes of a line of code written without a fence (Trac-style issues paste code as plain text).
_CODE_LINE = re.compile(
    r"""^\s*(?:
        (?:>>>|\.\.\.)(?:\s|$)                    # python prompt or continuation
      | In\s?\[\d+\]:|Out\s?\[\d+\]:              # IPython
      | \$\s+\S                                   # shell prompt
      | (?:async\s+)?def\s+\w+\s*\(               # definitions
      | class\s+\w+\s*[(:]
      | (?:from\s+[\w.]+\s+)?import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+)*\s*$
      | @[\w.]+(?:\(.*\))?\s*$                    # decorator
      | (?:if|elif|for|while|with|try|except|else|finally)\b[^.!?]*:\s*(?:\#.*)?$
      | (?:return|raise|yield|assert|del|pass|break|continue)\b(?:\s+[\w.\[('"{-].*)?$
      | [\w.\[\]'"]+(?:\s*,\s*[\w.]+)*\s*(?:[-+*/|&%]?=)\s*\S.*$  # assignment
      | [\w.]+\(.*\)[\w.\[\]()]*\s*;?\s*(?:\#.*)?$  # a bare call
      | [\w.]+\([^)]*$                            # call continued on the next line
      | [)\]}]+[,;:]?\s*$                         # closing brackets
      | Traceback\s\(most\srecent\scall\slast\)
      | File\s"[^"]+",\sline\s\d+
      | [\w.]*(?:Error|Exception|Warning)(?::\s.*)?$
    )""",
    re.X,
)


@dataclass(frozen=True)
class CodeBlock:
    """A block of code: fenced, indented, or recognised by shape in plain text."""

    text: str
    info: str = ""
    origin: CodeOrigin = "fence"
    lead: str = ""
    """The prose line just before the block: it says what the block is (a repro, a fix)."""

    @property
    def lines(self) -> list[str]:
        return [ln for ln in self.text.splitlines() if ln.strip()]


@dataclass
class IssueParts:
    """What an issue is made of, as far as the signals are concerned."""

    prose: list[str] = field(default_factory=list)
    """Lines of running text, HTML comments (issue-template hints) removed."""
    blocks: list[CodeBlock] = field(default_factory=list)
    inline_code: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)
    """Section titles (`### Expected`, `**Describe the bug**`): structure, not the reporter's words."""
    sections: list[str] = field(default_factory=list)
    """For each prose line, the section title it stands under ("" before any)."""
    last_text: str = ""
    """The latest prose line or heading seen while parsing (the lead of the next block)."""
    raw: str = ""
    title: str = ""
    truncated: bool = False

    @property
    def body_prose(self) -> list[str]:
        """Prose lines of the body only (the title, when there is one, comes first)."""
        return self.prose[1:] if self.title else self.prose

    @property
    def body_sections(self) -> list[str]:
        """The section title of each line of `body_prose`."""
        return self.sections[1:] if self.title else self.sections

    @property
    def prose_text(self) -> str:
        return "\n".join(self.prose)

    @property
    def code_text(self) -> str:
        return "\n".join(b.text for b in self.blocks)


def is_code_line(line: str) -> bool:
    """True when a plain-text line has the shape of code rather than of a sentence."""
    stripped = line.strip()
    if not stripped or len(stripped) > 400:
        return False
    return bool(_CODE_LINE.match(stripped))


# Issue forms leave a heading with "_No response_" under every section the reporter skipped.
_EMPTY_SECTION = re.compile(r"^#{1,6}[^\n]*\n+\s*_No response_\s*$", re.M)


def _shorten_runs(text: str) -> str:
    """Bound every space-free run: regexes over identifiers cost the square of a run's length."""
    return _LONG_RUN.sub(lambda m: f"{m.group(0)[:40]} … {m.group(0)[-100:]}", text)


def split_issue(title: str, body: str) -> IssueParts:
    """Parse title + body; code blocks, inline code, links and prose lines."""
    truncated = len(body) > MAX_ANALYSED_CHARS
    text = _EMPTY_SECTION.sub("", _shorten_runs(body[:MAX_ANALYSED_CHARS].replace("\r\n", "\n")))
    title = _shorten_runs(title[:1000])
    parts = IssueParts(raw=f"{title}\n{text}", title=title.strip(), truncated=truncated)
    if title.strip():
        parts.prose.append(title.strip())
        parts.sections.append("")
        parts.inline_code += re.findall(r"`([^`\n]+)`", title)
    source_lines = text.splitlines()
    for token in issue_markdown().parse(text):
        _take(token, source_lines, parts)
    parts.links = list(dict.fromkeys(_URL.findall(_HTML_COMMENT.sub(" ", text))))
    return parts


def _take(token: Token, source_lines: list[str], parts: IssueParts) -> None:
    if token.type == "fence":
        info = token.info.strip().lower()
        parts.blocks.append(CodeBlock(token.content, info, "fence", _lead(parts)))
    elif token.type == "code_block":
        parts.blocks.append(CodeBlock(token.content, "", "indented", _lead(parts)))
    elif token.type == "html_block":
        # Template hints live in comments; other raw HTML (e.g. <details>) may hold text.
        kept = _HTML_COMMENT.sub(" ", token.content)
        kept = re.sub(r"<[^>\n]+>", " ", kept)
        _take_lines(kept.splitlines(), parts)
    elif token.type == "inline":
        for child in token.children or []:
            if child.type == "code_inline":
                parts.inline_code.append(child.content)
        if token.map:
            lines = source_lines[token.map[0] : token.map[1]]
            _take_lines([_HTML_COMMENT.sub(" ", ln) for ln in lines], parts)
        else:
            _take_lines(token.content.splitlines(), parts)


_HEADING = re.compile(r"^\s*(?:#{1,6}\s+.*|\*\*[^*]+\*\*\s*:?|__[^_]+__\s*:?)\s*$")
_CONTAINER_MARKS = re.compile(r"^\s*(?:>\s)+|^\s*(?:[-*+]|\d+[.)])\s+(?=\S)")


def _take_lines(lines: list[str], parts: IssueParts) -> None:
    """Prose lines go to prose; runs of code-shaped lines become unfenced blocks."""
    run: list[str] = []
    for raw_line in lines:
        line = _CONTAINER_MARKS.sub("", raw_line)
        if is_code_line(line):
            run.append(line)
            continue
        if run:
            parts.blocks.append(CodeBlock("\n".join(run) + "\n", "", "unfenced", _lead(parts)))
            run = []
        if _HEADING.match(line):
            parts.headings.append(line.strip().strip("#*_: "))
            parts.last_text = parts.headings[-1]
        elif line.strip():
            parts.prose.append(line.strip().lstrip("#>*-+ ").strip())
            parts.sections.append(parts.headings[-1] if parts.headings else "")
            parts.last_text = parts.prose[-1]
    if run:
        parts.blocks.append(CodeBlock("\n".join(run) + "\n", "", "unfenced", _lead(parts)))


def _lead(parts: IssueParts) -> str:
    return parts.last_text

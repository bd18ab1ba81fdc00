"""Identifiers and messages a gold patch introduces: in its added code, absent before."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from spice_engine.pr_evidence.patch_parse import FileDiff, Line, parse_hunk
from spice_engine.pr_evidence.symbols import Symbols, collect

# Kinds of symbol that define something: a call or a read of a name defines nothing.
DEFINING_KINDS = {"def", "class", "param", "attr", "assign"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Messages and rendered output have several words; `", key="` repr glue has one.
_WORD = re.compile(r"\w{2,}")
_EXCEPTION_BASE = re.compile(r"(Error|Exception|Warning)$")
_PLACEHOLDER = re.compile(r"%(\([^)]*\))?[-#0 +]*\d*(\.\d+)?[sdrfiexXgG%]|\{[^{}]*\}")
MIN_MESSAGE_PIECE = 10
"""Shortest placeholder-free run of a message that counts as distinctive text."""


def normalize_name(name: str) -> str:
    """Case- and underscore-insensitive form used for every name comparison."""
    return name.replace("_", "").lower()


def message_pieces(value: str) -> list[str]:
    """The literal runs of a message between format placeholders, whitespace collapsed."""
    pieces = (" ".join(p.split()) for p in _PLACEHOLDER.split(value) if p)
    return [
        p
        for p in pieces
        if len(p.strip(" .,:;'\"`()[]")) >= MIN_MESSAGE_PIECE and len(_WORD.findall(p)) >= 2
    ]


@dataclass(frozen=True)
class IntroducedName:
    name: str
    kind: str
    """def, class, exception, param, attr, assign (a module constant) or string (a name in quotes)."""
    file: str
    line: int
    owner: str = ""
    source: str = ""


@dataclass(frozen=True)
class IntroducedMessage:
    value: str
    pieces: tuple[str, ...]
    file: str
    line: int
    source: str = ""


@dataclass
class Introduced:
    names: list[IntroducedName] = field(default_factory=list)
    messages: list[IntroducedMessage] = field(default_factory=list)


def image_symbols(hunks: list[list[Line]]) -> Symbols:
    fragments = [fragment for hunk in hunks for fragment in parse_hunk(hunk)]
    return collect(fragments)


def _changed(lines: list[list[Line]]) -> set[int]:
    return {line.number for hunk in lines for line in hunk if line.changed}


def _touches(start: int, end: int, changed: set[int]) -> bool:
    return any(number in changed for number in range(start, end + 1))


def _existing_names(
    diff: FileDiff, post: Symbols, changed: set[int], repo: Path | None
) -> set[str]:
    """Names visible before the patch: the pre-image, unchanged context, the checkout's file."""
    pre = image_symbols(diff.pre_hunks)
    known = {s.name for s in pre.names}
    known |= {s.name for s in post.names if not _touches(s.line, s.line, changed)}
    if repo is not None and (repo / diff.path).is_file() and not diff.is_new:
        words = re.findall(
            r"[A-Za-z_][A-Za-z0-9_]*", (repo / diff.path).read_text(errors="replace")
        )
        known |= set(words)
    return known


def introduced(gold: list[FileDiff], repo_path: Path | None = None) -> Introduced:
    """What the Python files of the gold patch add that did not exist before."""
    out = Introduced()
    seen_names: set[tuple[str, str]] = set()
    seen_messages: set[str] = set()
    for diff in gold:
        if not diff.is_python or diff.is_deleted:
            continue
        post = image_symbols(diff.post_hunks)
        changed = _changed(diff.post_hunks)
        known = _existing_names(diff, post, changed, repo_path)
        for symbol in post.names:
            if symbol.kind not in DEFINING_KINDS or not _touches(symbol.line, symbol.line, changed):
                continue
            if symbol.kind == "attr" and symbol.owner != "store":
                continue
            key = symbol.name
            if key in known or len(key.strip("_")) < 3:
                continue
            kind = symbol.kind
            if kind == "class" and _EXCEPTION_BASE.search(symbol.owner or ""):
                kind = "exception"
            if (key, kind) in seen_names:
                continue
            seen_names.add((key, kind))
            out.names.append(
                IntroducedName(
                    symbol.name, kind, diff.path, symbol.line, symbol.owner, symbol.source
                )
            )
        before = {s.value for s in image_symbols(diff.pre_hunks).strings}
        for lit in post.strings:
            if lit.docstring or lit.value in before or lit.value in seen_messages:
                continue
            if not _touches(lit.line, lit.end_line, changed):
                continue
            if _IDENTIFIER.fullmatch(lit.value) and lit.value not in known:
                # getattr/hasattr hooks, option values and setting keys named in strings.
                if len(lit.value.strip("_")) >= 4 and (lit.value, "string") not in seen_names:
                    seen_names.add((lit.value, "string"))
                    out.names.append(
                        IntroducedName(lit.value, "string", diff.path, lit.line, "", lit.source)
                    )
                continue
            pieces = message_pieces(lit.value)
            if not pieces:
                continue
            seen_messages.add(lit.value)
            out.messages.append(
                IntroducedMessage(lit.value, tuple(pieces), diff.path, lit.line, lit.source)
            )
    return out

"""Which introduced names and messages the added test lines use, and whether the issue has them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise

from spice_engine.pr_evidence.introduced import (
    Introduced,
    IntroducedMessage,
    IntroducedName,
    image_symbols,
    message_pieces,
    normalize_name,
)
from spice_engine.pr_evidence.patch_parse import FileDiff

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Regex syntax a test puts around the literal text it expects (pytest.raises(match=...)).
_REGEX_GLUE = re.compile(r"\.[*+?]|\\[dswDSWbB][*+?]?|\[[^\]]*\][*+?]?|\{\d*,?\d*\}|(?<!\\)[\^$|]")
_ESCAPE = re.compile(r"\\(.)")
MIN_COMMON_RUN = 15
"""Characters a test literal and a message must share when neither contains the other."""


class IssueText:
    """The issue text in the forms names and messages are compared against."""

    def __init__(self, text: str) -> None:
        self.lower = " ".join(text.lower().split())
        words = [normalize_name(w) for w in _WORD.findall(text)]
        self.names = set(words)
        # "use strict" in prose can name `use_strict` in code.
        self.names |= {a + b for a, b in pairwise(words)}
        self.names |= {a + b + c for a, b, c in zip(words, words[1:], words[2:], strict=False)}

    def has_name(self, name: str) -> bool:
        return normalize_name(name) in self.names

    def has_text(self, text: str) -> bool:
        return " ".join(text.lower().split()) in self.lower


@dataclass(frozen=True)
class NameUse:
    name: IntroducedName
    file: str
    line: int
    how: str
    """The test-side symbol kind: call, keyword, attr, name, def or param."""
    source: str
    in_issue: bool


@dataclass(frozen=True)
class MessageUse:
    message: IntroducedMessage
    text: str
    """The test's literal text that overlaps the message."""
    file: str
    line: int
    asserted: bool
    source: str
    in_issue: bool


def literal_pieces(test_string: str) -> list[str]:
    """Plain-text runs of a test literal: regex syntax, escapes and placeholders removed."""
    pieces = (_ESCAPE.sub(r"\1", p) for p in _REGEX_GLUE.split(test_string))
    return [piece for p in pieces for piece in message_pieces(p)]


def _overlap(test_string: str, message: IntroducedMessage) -> str:
    """Shared text: a whole piece of one inside the other, or a long common run."""
    for piece in literal_pieces(test_string):
        for gold in message.pieces:
            if piece in gold:
                return piece
            if gold in piece:
                return gold
            match = SequenceMatcher(None, piece, gold, autojunk=False).find_longest_match()
            common = piece[match.a : match.a + match.size].strip()
            # A test that formats its own values into the message shares long runs only.
            if len(common) >= MIN_COMMON_RUN and " " in common:
                return common
    return ""


def _asserting_vars(diff_symbols: list[tuple[str, str]]) -> set[str]:
    return {name for kind, name in diff_symbols if kind == "asserted"}


def name_uses(tests: list[FileDiff], new: Introduced, issue: IssueText) -> list[NameUse]:
    by_key: dict[str, IntroducedName] = {}
    for item in new.names:
        by_key.setdefault(item.name, item)
    uses: list[NameUse] = []
    seen: set[str] = set()
    for diff in tests:
        if not diff.is_python:
            continue
        changed = {line.number for line in diff.added}
        for symbol in image_symbols(diff.post_hunks).names:
            key = symbol.name
            if key not in by_key or symbol.line not in changed or key in seen:
                continue
            item = by_key[key]
            if symbol.kind in ("def", "class") and item.kind != "string":
                continue  # defining the same name is a use only of a hook named in a string
            seen.add(key)
            uses.append(
                NameUse(
                    item,
                    diff.path,
                    symbol.line,
                    symbol.kind,
                    symbol.source,
                    issue.has_name(item.name),
                )
            )
        # Settings keys, getattr() names and the like reach the fix's names as strings.
        for lit in image_symbols(diff.post_hunks).strings:
            hook = by_key.get(lit.value)
            if hook is None or lit.line not in changed or lit.value in seen:
                continue
            seen.add(lit.value)
            uses.append(
                NameUse(hook, diff.path, lit.line, "string", lit.source, issue.has_name(hook.name))
            )
    return uses


def message_uses(tests: list[FileDiff], new: Introduced, issue: IssueText) -> list[MessageUse]:
    uses: list[MessageUse] = []
    seen: set[str] = set()
    for diff in tests:
        changed = {line.number for line in diff.added}
        symbols = image_symbols(diff.post_hunks) if diff.is_python else None
        if symbols is None:
            continue
        asserted_vars = {
            s.name for s in symbols.names if s.kind == "name" and s.owner == "asserted"
        }
        for lit in symbols.strings:
            if not any(n in changed for n in range(lit.line, lit.end_line + 1)):
                continue
            asserted = lit.asserted or (bool(lit.assigned_to) and lit.assigned_to in asserted_vars)
            for message in new.messages:
                text = _overlap(lit.value, message)
                if not text or message.value in seen:
                    continue
                seen.add(message.value)
                in_issue = issue.has_text(text) or any(issue.has_text(p) for p in message.pieces)
                uses.append(
                    MessageUse(message, text, diff.path, lit.line, asserted, lit.source, in_issue)
                )
    return uses

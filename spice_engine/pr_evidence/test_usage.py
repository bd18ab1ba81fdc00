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


# Test-framework calls whose keyword arguments name the test's own values.
_TEST_CALLS = {"subTest", "parametrize", "param", "fixture", "skipif", "xfail"}


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


def _shingles(text: str) -> frozenset[str]:
    """8-character windows: texts sharing a 15-character run share some (a cheap pre-check)."""
    return frozenset(text[i : i + 8] for i in range(max(len(text) - 7, 1)))


class MessageMatcher:
    """Finds the text a test literal shares with introduced messages, within a work budget."""

    def __init__(self, messages: list[IntroducedMessage], max_long_matches: int = 20_000) -> None:
        self.pieces = [[(gold, _shingles(gold)) for gold in m.pieces] for m in messages]
        self.budget = max_long_matches
        """Common-run searches left; containment checks stay on when it runs out."""

    @property
    def exhausted(self) -> bool:
        return self.budget <= 0

    def overlaps(
        self, test_pieces: list[tuple[str, frozenset[str]]], message_index: int
    ) -> list[str]:
        """Shared texts: a whole piece of one inside the other, or a long common run."""
        found: list[str] = []
        for piece, windows in test_pieces:
            for gold, gold_windows in self.pieces[message_index]:
                if piece in gold:
                    found.append(piece)
                elif gold in piece:
                    found.append(gold)
                elif self.budget > 0 and not windows.isdisjoint(gold_windows):
                    self.budget -= 1
                    match = SequenceMatcher(None, piece, gold, autojunk=False).find_longest_match()
                    common = piece[match.a : match.a + match.size].strip()
                    # A test that formats its own values into the message shares long runs only.
                    if len(common) >= MIN_COMMON_RUN and " " in common:
                        found.append(common)
        return found


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
        symbols = image_symbols(diff.post_hunks).names
        # A name the test binds itself (variable, parameter, helper) is the test's, not the fix's.
        own = {s.name for s in symbols if s.kind in ("local", "param", "assign", "def", "class")}
        for symbol in symbols:
            key = symbol.name
            if key not in by_key or symbol.line not in changed or key in seen:
                continue
            item = by_key[key]
            if symbol.kind in ("local", "assign", "param") or (
                symbol.kind == "name" and key in own
            ):
                continue  # a binding in the test, or a read of one, is the test's own name
            if symbol.kind == "keyword" and (symbol.owner in own or symbol.owner in _TEST_CALLS):
                continue  # subTest(x=...), parametrize or a test helper: not the fix's signature
            if symbol.kind in ("def", "class") and item.kind not in ("string", "def"):
                continue  # a test defining a name uses it only as a hook (a method or quoted name)
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


def _test_literals(diff: FileDiff) -> list[tuple[str, int, bool, str]]:
    """(text, line, asserted, source) of the strings a test file adds.

    Python files give their string literals; other test files (expected-output files,
    doctest text) are expected output as a whole, so each added line counts as asserted.
    """
    changed = {line.number for line in diff.added}
    if not diff.is_python:
        return [(line.text, line.number, True, line.text.strip()) for line in diff.added]
    symbols = image_symbols(diff.post_hunks)
    asserted_vars = {s.name for s in symbols.names if s.kind == "name" and s.owner}
    return [
        (
            lit.value,
            lit.line,
            lit.asserted or (bool(lit.assigned_to) and lit.assigned_to in asserted_vars),
            lit.source,
        )
        for lit in symbols.strings
        if any(n in changed for n in range(lit.line, lit.end_line + 1))
    ]


def message_uses(
    tests: list[FileDiff], new: Introduced, issue: IssueText, notes: list[str] | None = None
) -> list[MessageUse]:
    """Test literals that share text with a message the fix adds (first use per message)."""
    uses: list[MessageUse] = []
    matcher = MessageMatcher(new.messages)
    open_messages = set(range(len(new.messages)))
    for diff in tests:
        for value, line, asserted, source in _test_literals(diff):
            pieces = [(piece, _shingles(piece)) for piece in literal_pieces(value)]
            for index in sorted(open_messages) if pieces else []:
                shared = matcher.overlaps(pieces, index)
                if not shared:
                    continue
                open_messages.discard(index)
                # The issue states the text only if it states every part the test checks.
                fresh = [text for text in shared if not issue.has_text(text)]
                text = fresh[0] if fresh else shared[0]
                uses.append(
                    MessageUse(
                        new.messages[index], text, diff.path, line, asserted, source, not fresh
                    )
                )
    if matcher.exhausted and notes is not None:
        notes.append("message matching fell back to containment only: too many literals")
    return uses


# Assertions whose string argument is the exact text of an exception, warning or log record.
ERROR_CHECKS = {
    "match",
    "assertRaisesMessage",
    "assertRaisesRegex",
    "assertRaisesRegexp",
    "assertWarnsRegex",
    "assertWarnsMessage",
    "assert_raise_message",
    "assert_raises_regex",
    "assert_raises_message",
    "assert_warns_message",
    "assertFormError",
}


# An assertion line that reads an exception, a warning, a log record or stderr.
_ERROR_OUTPUT = re.compile(
    r"excinfo|\.exception\b|\bstr\((e|exc|err|error|ex|w|warning)\)|caplog|\.output\b"
    r"|getMessage|\berr\b|stderr|\.messages?\b|\.errors\b"
)


@dataclass(frozen=True)
class CheckedMessage:
    """A test literal compared with an error or warning text."""

    text: str
    file: str
    line: int
    source: str
    in_issue: bool


def checked_error_messages(tests: list[FileDiff], issue: IssueText) -> list[CheckedMessage]:
    """Added test literals used as expected exception/warning text (directly or via a variable)."""
    found: list[CheckedMessage] = []
    for diff in tests:
        if not diff.is_python:
            continue
        changed = {line.number for line in diff.added}
        symbols = image_symbols(diff.post_hunks)
        checked_vars = {
            s.name for s in symbols.names if s.kind == "name" and s.owner in ERROR_CHECKS
        }
        for lit in symbols.strings:
            if lit.line not in changed:
                continue
            on_error = lit.via in ERROR_CHECKS or lit.assigned_to in checked_vars
            if not on_error and not (lit.via and _ERROR_OUTPUT.search(lit.source)):
                continue
            pieces = literal_pieces(lit.value)
            if not pieces:
                continue
            in_issue = any(issue.has_text(p) for p in pieces)
            found.append(CheckedMessage(pieces[0], diff.path, lit.line, lit.source, in_issue))
    return found

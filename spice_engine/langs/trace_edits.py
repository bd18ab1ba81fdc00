"""What the call tracers (spice_engine.langs.go_trace, rust_trace, java_trace) share: the function
holding a byte, its callers in the file, and edits spliced into a source without moving a
line."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str
    """Written in place of bytes `start`..`end`: never a newline before the source's last byte."""


def spliced(raw: bytes, edits: list[Edit]) -> str:
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        raw = raw[: e.start] + e.text.encode() + raw[e.end :]
    return raw.decode()


def holding(root: Any, byte: int, size: int, kinds: frozenset[str]) -> Any | None:
    """The innermost node of `kinds` holding `byte` (None: none does)."""
    node = root.descendant_for_byte_range(byte, byte) if 0 <= byte < size else None
    while node is not None and node.type not in kinds:
        node = node.parent
    return node


def ident(tag: str, node: Any) -> str:
    """A function's id in the trace: its file and where its first token starts (a tab or a
    newline in the file's name escaped: the id is one field of one line)."""
    name = tag.encode("unicode_escape").decode("ascii")
    return f"{name}:{node.start_point[0] + 1}:{node.start_point[1] + 1}"


def text_of(raw: bytes, node: Any) -> str:
    return raw[node.start_byte : node.end_byte].decode()


@lru_cache(maxsize=8)
def parsed(grammar: str, source: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar).parse(source.encode())  # type: ignore[arg-type]


CALLERS_KEPT = 8
"""A private function's callers traced at most (a helper everything calls costs every one)."""
WALKED = 20_000
"""Values a walk of one argument or result reads at most: a graph whose nodes are shared (a
parser's caches, gson's factories) is walked again along each path to it, and gson-1555's
traced run of the fix outlived its bound."""


def callers_in_file(
    grammar: str, source: str, at: int, kinds: frozenset[str], private: Callable[[bytes, Any], bool]
) -> list[int]:
    """Where the other functions of the file calling the function holding byte `at` begin
    their bodies (a byte inside each), when that function is `private` (no caller outside the
    file sees what it answers: its callers' answers are what a caller sees); [] otherwise."""
    raw = source.encode()
    root = parsed(grammar, source).root_node
    node = holding(root, at, len(raw), kinds)
    name = node.child_by_field_name("name") if node is not None else None
    if node is None or name is None or not private(raw, node):
        return []
    call = re.compile(
        rb"(?<![A-Za-z0-9_$])" + re.escape(raw[name.start_byte : name.end_byte]) + rb"\s*\("
    )
    found: list[int] = []
    stack = [root]
    while stack:
        other = stack.pop()
        stack.extend(other.named_children)
        body = other.child_by_field_name("body")
        if other.type not in kinds or body is None or other.start_byte == node.start_byte:
            continue
        if other.child_by_field_name("name") is None:
            continue  # a literal's caller is not known
        if call.search(raw[body.start_byte : body.end_byte]):
            found.append(body.start_byte + 1)
    return sorted(found)[:CALLERS_KEPT]

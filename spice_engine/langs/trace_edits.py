"""What the call tracers (spice_engine.langs.go_trace, rust_trace) share: the function holding a
byte, and edits spliced into a source without moving a line."""

from __future__ import annotations

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
    """A function's id in the trace: its file and where its first token starts."""
    return f"{tag}:{node.start_point[0] + 1}:{node.start_point[1] + 1}"


def text_of(raw: bytes, node: Any) -> str:
    return raw[node.start_byte : node.end_byte].decode()


@lru_cache(maxsize=8)
def parsed(grammar: str, source: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar).parse(source.encode())  # type: ignore[arg-type]

"""Cheap proofs that a mutant changes nothing: the same program after Python's own compiler
has folded its constants. Only the top-level statement that holds the change is compiled (a
large file compiled once per mutant cost seconds)."""

from __future__ import annotations

import ast
from types import CodeType


def span(node: ast.stmt) -> tuple[int, int]:
    """(first, last) line of a statement, decorators included."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first, node.end_lineno or node.lineno


def statement_lines(source: str) -> list[tuple[int, int]]:
    """(first, last) line of each top-level statement, decorators included."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    return [span(node) for node in tree.body]


def _enclosing(spans: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    return next(((a, b) for a, b in spans if a <= line <= b), None)


def _shape(code: CodeType) -> tuple[object, ...]:
    """What a code object does, without where it came from (names of lines and files)."""
    consts = tuple(_shape(c) if isinstance(c, CodeType) else (type(c), c) for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars)


def same_bytecode(fixed: str, mutant: str, line: int, spans: list[tuple[int, int]]) -> bool:
    """True when the top-level statement holding `line` compiles to the same bytecode in both
    (the mutant's statement may have more or fewer lines: it ends where the fixed one does,
    counted from the end)."""
    span = _enclosing(spans, line)
    if span is None:
        return False
    a, b = span
    rows, mrows = fixed.splitlines(keepends=True), mutant.splitlines(keepends=True)
    tail = len(rows) - b
    before = "".join(rows[a - 1 : b])
    after = "".join(mrows[a - 1 : len(mrows) - tail])
    try:
        left = compile(before, "<fixed>", "exec", dont_inherit=True, optimize=0)
        right = compile(after, "<mutant>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return False
    return _shape(left) == _shape(right)

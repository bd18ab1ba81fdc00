"""Python's line probe (spice_engine.langs.line_probes says what a probe is for): where our
pytest plugins do not watch the tests (sympy's `bin/test`, any runner of a repository's own),
an exception raised before the statement holding a survivor's token tells which tests run it.

Python has no braces to put around a lone branch, so the probe takes one of two shapes, each on
the line it probes (every line keeps its number):
- before a simple statement, as one more simple statement on its line
  (`raise AssertionError(…); x = y`, valid after indentation, a `;` or a one-line `if x:`);
- in front of the condition of an `if`, `elif` or `while`, the iterable of a `for`, or the
  first context of a `with`, as an expression that raises (`(PROBE) or (cond)`), so the probe
  runs exactly when the header does (an `elif` is not a place for a statement); for a token
  anywhere in the header up to that expression's end (the whole `if` a guard's removal takes).

Code run at import (a module's or a class's own statements, a default argument, a decorator)
gets no probe: the import would fail for every test, which tells nothing of the line.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

MARK = "spice: line probe"
STATEMENT = f'raise AssertionError("{MARK}"); '
RAISING = f'(_ for _ in ()).throw(AssertionError("{MARK}"))'
"""An expression that raises (a fresh generator's `throw`), valid in every Python 3."""
_BODIES = ("body", "orelse", "finalbody")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def probe(source: str, at: int) -> str | None:
    """`source` with a probe before the statement (or in front of the header's expression)
    holding byte `at`; None when that code runs at import or the source does not parse here."""
    raw = source.encode()
    if not 0 <= at < len(raw):
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # another Python's syntax (2.x): not known
        return None
    starts = _line_starts(raw)
    found = _innermost(tree.body, at, starts, in_function=False)
    if found is None:
        return None
    node, in_function = found
    if not in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    header = _header(node)
    if header is not None:
        start, end = _span(header, starts)
        if not _span(node, starts)[0] <= at < end:
            return None  # an `else:` or `try:` line: nothing of it is evaluated alone
        text = f"({RAISING}) or (".encode() + raw[start:end] + b")"
        return (raw[:start] + text + raw[end:]).decode()
    if _compound(node):
        return None
    start = _span(node, starts)[0]
    return (raw[:start] + STATEMENT.encode() + raw[start:]).decode()


def _line_starts(raw: bytes) -> list[int]:
    starts = [0]
    for n, byte in enumerate(raw):
        if byte == 0x0A:
            starts.append(n + 1)
    return starts


def _span(node: ast.AST, starts: list[int]) -> tuple[int, int]:
    """`node`'s bytes in the source (ast's columns count UTF-8 bytes)."""
    start = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
    end_line = node.end_lineno or node.lineno  # type: ignore[attr-defined]
    end_col = node.end_col_offset if node.end_col_offset is not None else node.col_offset  # type: ignore[attr-defined]
    return start, starts[end_line - 1] + end_col


def _children(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in _BODIES:
        body = getattr(node, name, None)
        if isinstance(body, list):
            yield body
    for handler in getattr(node, "handlers", []):
        yield handler.body
    for case in getattr(node, "cases", []):
        yield case.body


def _innermost(
    body: list[ast.stmt], at: int, starts: list[int], in_function: bool
) -> tuple[ast.stmt, bool] | None:
    """The innermost statement holding byte `at`, and whether it is in a function's body."""
    for node in body:
        start, end = _span(node, starts)
        if not start <= at < end:
            continue
        inner = in_function or isinstance(node, _SCOPES)
        if isinstance(node, ast.ClassDef):
            inner = False  # a class's own statements run when it is defined
        for child in _children(node):
            found = _innermost(child, at, starts, inner)
            if found is not None:
                return found
        return node, in_function
    return None


def _header(node: ast.stmt) -> ast.expr | None:
    """The expression a compound statement's header evaluates (None: none, or not compound)."""
    if isinstance(node, (ast.If, ast.While)):
        return node.test
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return node.iter
    if isinstance(node, (ast.With, ast.AsyncWith)) and node.items:
        return node.items[0].context_expr
    return None


def _compound(node: ast.stmt) -> bool:
    return any(True for _ in _children(node)) or isinstance(node, ast.Try)

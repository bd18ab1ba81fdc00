"""Mutants as text: the schema file (every mutant behind its switch), equivalence, diffs."""

from __future__ import annotations

import ast
import difflib

import libcst as cst

from spice_engine.strength import scoped
from spice_engine.strength.mutants import run_mutator
from spice_engine.strength.sites import PRELUDE, Site


def schema(source: str, lines: set[int], chosen: set[int], offset: int = 0) -> str:
    """`source` with every mutant in `chosen`, each switched on by `SPICE_MUTANT` equal to its
    id plus `offset` (so that several files' mutants can share one session)."""
    code = run_mutator(source, lines, chosen, True, offset)[0]
    module = cst.parse_module(code)
    body = list(module.body)
    at = 0
    while at < len(body) and _is_header(body[at], first=at == 0):
        at += 1
    body[at:at] = cst.parse_module(PRELUDE).body
    return module.with_changes(body=body).code


def _is_header(stmt: cst.CSTNode, first: bool) -> bool:
    """A module docstring or a `from __future__` import: what must stay at the top."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name):
        return small.module.value == "__future__"
    return first and isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)


def same_program(a: str, b: str) -> bool:
    """True when the two sources parse to the same AST (a mutant that changes nothing)."""
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError):
        return False


def diff(path: str, before: str, after: str) -> str:
    """A small unified diff of one file (one line of context)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{path}",
        f"b/{path}",
        n=1,
    )
    return "".join(lines)


def mutant_source(source: str, lines: set[int], site: Site) -> str:
    """`source` with `site`'s mutant alone: a text edit when the site has one (one parse of a
    large file per mutant cost seconds each), else the whole rewrite."""
    if site.splice is None:
        return scoped.plain(source, lines, site)
    l1, c1, l2, c2, text = site.splice
    rows = source.splitlines(keepends=True)
    head = "".join(rows[: l1 - 1]) + rows[l1 - 1][:c1]
    tail = rows[l2 - 1][c2:] + "".join(rows[l2:])
    return head + text + tail

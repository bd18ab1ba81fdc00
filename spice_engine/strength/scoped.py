"""Mutation sites found in the top-level statements that hold the changed lines, each parsed
alone (a method of a class after its classes' header lines only): libcst's positions over a
whole large file cost about a second per pass, and the fix usually touches a few functions.

Site ids are those of the whole file (sites are numbered in traversal order, counting only
those on changed lines, all of which lie in these statements), so the schema, built from the
whole file, switches the same mutants.
"""

from __future__ import annotations

import ast
import dataclasses

from spice_engine.strength.equivalence import span
from spice_engine.strength.mutants import find_sites as whole_file_sites
from spice_engine.strength.mutants import run_mutator
from spice_engine.strength.sites import Site

Scope = tuple[int, int, str]
"""(first line, last line, the lines it is parsed after): a statement of the file, or a method
parsed after the headers of the classes around it."""


def _scopes(source: str, lines: set[int]) -> list[Scope] | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None  # Python's parser refuses it: libcst decides on the whole file
    rows = source.splitlines(keepends=True)
    found: list[Scope] = []
    for node in tree.body:
        a, b = span(node)
        mine = {n for n in lines if a <= n <= b}
        if mine:
            found += _methods(node, mine, rows) or [(a, b, "")]
    covered = {n for a, b, _ in found for n in range(a, b + 1)}
    # A changed line outside every statement is a comment or a blank: nothing to mutate there.
    return found if all(not _code(rows, n) for n in lines - covered) else None


def _methods(node: ast.stmt, lines: set[int], rows: list[str], wrap: str = "") -> list[Scope]:
    """The methods of class `node` that hold `lines`, each after its classes' headers ([]:
    some changed code lies outside them, and the whole class is parsed)."""
    if not isinstance(node, ast.ClassDef) or not node.body:
        return []
    body_starts = span(node.body[0])[0]
    if body_starts <= node.lineno:
        return []  # `class A: x = 1`: no header line of its own
    wrap += "".join(rows[node.lineno - 1 : body_starts - 1])
    found: list[Scope] = []
    for child in node.body:
        a, b = span(child)
        mine = {n for n in lines if a <= n <= b}
        if not mine:
            continue
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((a, b, wrap))
        elif not (inner := _methods(child, mine, rows, wrap)):
            return []
        else:
            found += inner
    covered = {n for a, b, _ in found for n in range(a, b + 1)}
    return found if all(not _code(rows, n) for n in lines - covered) else []


def _code(rows: list[str], n: int) -> bool:
    text = rows[n - 1].strip() if 0 < n <= len(rows) else ""
    return bool(text) and not text.startswith("#")


def _shift(site: Site, k: int, scope: Scope) -> Site:
    a, _, wrap = scope
    by = a - 1 - wrap.count("\n")  # a snippet's line + `by` = the file's
    splice = site.splice
    if splice is not None:
        splice = (splice[0] + by, splice[1], splice[2] + by, splice[3], splice[4])
    return dataclasses.replace(
        site, id=k, line=site.line + by, splice=splice, scope=(*scope, site.id)
    )


def _snippet(rows: list[str], lines: set[int], scope: Scope) -> tuple[str, set[int]]:
    a, b, wrap = scope
    by = a - 1 - wrap.count("\n")
    return wrap + "".join(rows[a - 1 : b]), {n - by for n in lines if a <= n <= b}


def find_sites(source: str, lines: set[int]) -> list[Site]:
    """As `mutants.find_sites`, parsing only the statements (or methods) that hold `lines`."""
    scopes = _scopes(source, lines)
    if scopes is None:
        return whole_file_sites(source, lines)
    rows = source.splitlines(keepends=True)
    out: list[Site] = []
    for scope in scopes:
        snippet, mine = _snippet(rows, lines, scope)
        for site in run_mutator(snippet, mine, None, False)[1]:
            out.append(_shift(site, len(out), scope))
    return out


def plain(source: str, lines: set[int], site: Site) -> str:
    """`source` with `site`'s mutant alone, rewritten in its statement (or method) only when it
    was found there."""
    if site.scope is None:
        return run_mutator(source, lines, {site.id}, False)[0]
    a, b, wrap, local = site.scope
    rows = source.splitlines(keepends=True)
    snippet, mine = _snippet(rows, lines, (a, b, wrap))
    mutated = run_mutator(snippet, mine, {local}, False)[0]
    if not mutated.startswith(wrap):
        raise ValueError(f"a mutant rewrote the class headers above line {a}")
    return "".join(rows[: a - 1]) + mutated[len(wrap) :] + "".join(rows[b:])

"""Which changes of a fix can matter to what it does: not benchmark, documentation or example
files, not prose (changelogs, READMEs, man pages) or pictures and tables, not docstrings,
comments or type-only code (a part of the fix made of those is never called untested)."""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

INERT_DIRS = {"asv_bench", "benchmarks", "benchmark", "bench", "docs", "doc", "examples", "example"}
TYPE_ONLY_BASES = {"TypedDict", "Protocol"}
PROSE_NAMES = ("changelog", "changes", "history", "news", "authors", "contributors",
               "readme", "license", "licence", "copying", "notice", "releasenotes")  # fmt: skip
"""File names (any case, any extension) read by people, never by the program."""
INERT_SUFFIXES = {
    ".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".rdoc", ".pod",
    ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".pdf", ".csv", ".tsv",
}  # fmt: skip
"""Prose, pictures and tables: a change to one is not a part of the fix's behaviour."""
_MAN_PAGE = re.compile(r"\.[1-9][a-z]?$")


def can_matter(path: str) -> bool:
    """False for a file under a benchmark, documentation or example directory, and for prose,
    a man page, a picture or a table (a changelog entry is no untested part)."""
    pure = PurePosixPath(path)
    if INERT_DIRS & set(pure.parts[:-1]):
        return False
    stem = pure.name.split(".", 1)[0].lower().replace("-", "").replace("_", "")
    if pure.suffix.lower() in INERT_SUFFIXES:
        return False
    # NEWS, LICENSE.APACHE: a people's file has no extension, or one in capitals.
    if stem in PROSE_NAMES and (not pure.suffix or pure.suffix.isupper()):
        return False
    return not _MAN_PAGE.search(pure.name)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _span(node: ast.AST) -> set[int]:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
    return set(range(first, (node.end_lineno or node.lineno) + 1))  # type: ignore[attr-defined]


def inert_lines(source: str) -> set[int]:
    """Lines of `source` no behaviour hangs on: blank and comment lines, docstrings, the bodies
    of `if TYPE_CHECKING:`, `@overload` stubs, `TypedDict` and `Protocol` classes (empty when
    it does not parse: then nothing is assumed inert)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    rows = source.splitlines()
    out = {n for n, row in enumerate(rows, 1) if not row.strip() or row.strip().startswith("#")}
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = body[0] if body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out |= _span(first) if isinstance(first.value.value, str) else set()
        if isinstance(node, ast.If) and _name(node.test) == "TYPE_CHECKING":
            out |= _span(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if any(_name(d) == "overload" for d in node.decorator_list):
                out |= _span(node)
        elif isinstance(node, ast.ClassDef) and any(
            _name(b) in TYPE_ONLY_BASES for b in node.bases
        ):
            out |= _span(node)
    return out

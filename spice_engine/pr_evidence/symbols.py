"""Definitions, parameters, attributes, calls and string literals found in parsed fragments."""

from __future__ import annotations

import ast
import keyword
import tokenize
from dataclasses import dataclass, field

from spice_engine.pr_evidence.patch_parse import Fragment

# Calls and keywords whose string arguments are checked against the code's output.
_ASSERTING_CALLS = {"raises", "warns", "deprecated_call", "fail", "check", "match", "search"}
_ASSERTING_KEYWORDS = {"match", "message", "msg", "expected", "expected_message", "regex"}


@dataclass(frozen=True)
class Symbol:
    """One name occurrence: `kind` is def, class, param, keyword, attr, assign, local, name or call.

    For a `name` read inside an assertion, `owner` is the asserting construct (see StringLit.via).
    """

    kind: str
    name: str
    line: int
    end_line: int
    owner: str = ""
    """The function a parameter belongs to, or the callee of a keyword argument."""
    source: str = ""
    """The code line it came from, for evidence."""


@dataclass(frozen=True)
class StringLit:
    """A string literal (or the constant part of an f-string) with where it sits."""

    value: str
    line: int
    end_line: int
    asserted: bool
    """Inside an assert, an assert*/raises/warns call or a `match=`-like keyword."""
    docstring: bool
    assigned_to: str = ""
    source: str = ""
    via: str = ""
    """The innermost asserting construct: `assert`, a call name, or a keyword like `match`."""


@dataclass
class Symbols:
    """Everything collected from one file image."""

    names: list[Symbol] = field(default_factory=list)
    strings: list[StringLit] = field(default_factory=list)


def _callee(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_asserting_call(call: ast.Call) -> bool:
    name = _callee(call.func).lower()
    return name.startswith(("assert", "check_")) or name in _ASSERTING_CALLS


class _Collector(ast.NodeVisitor):
    def __init__(self, fragment: Fragment, out: Symbols) -> None:
        self.fragment = fragment
        self.out = out
        self.asserting = 0
        self.via: list[str] = []
        self.assign_target = ""
        self.docstrings: set[int] = set()
        self.text = {line.number: line.text.strip() for line in fragment.lines}
        self.top_level = {line.number for line in fragment.lines if line.text[:1].strip()}

    def _span(self, node: ast.AST) -> tuple[int, int]:
        start = self.fragment.image_line(getattr(node, "lineno", 1))
        end = self.fragment.image_line(getattr(node, "end_lineno", None) or node.lineno)  # type: ignore[attr-defined]
        return start, end

    def _add(self, kind: str, name: str, node: ast.AST, owner: str = "") -> None:
        start, end = self._span(node)
        self.out.names.append(Symbol(kind, name, start, end, owner, self.text.get(start, "")))

    def _body_docstring(self, body: list[ast.stmt], triple_quoted_only: bool = False) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                source = self.text.get(self._span(stmt)[0], "").lstrip("rbuRBU")
                if not triple_quoted_only or source.startswith(('"""', "'''")):
                    self.docstrings.add(id(stmt.value))

    def visit_Module(self, node: ast.Module) -> None:
        # A fragment's top level may be the middle of an expression cut out of a hunk: only a
        # triple-quoted bare string there is taken for a docstring.
        self._body_docstring(node.body, triple_quoted_only=True)
        self.generic_visit(node)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self._add("def", node.name, node)
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.arg not in ("self", "cls"):
                self._add("param", arg.arg, arg, owner=node.name)
        self._body_docstring(node.body)
        self.generic_visit(node)

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        bases = ",".join(_callee(base) for base in node.bases)
        self._add("class", node.name, node, owner=bases)
        self._body_docstring(node.body)
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        self.asserting += 1
        self.via.append("assert")
        self.generic_visit(node)
        self.via.pop()
        self.asserting -= 1

    def visit_Call(self, node: ast.Call) -> None:
        callee = _callee(node.func)
        if callee:
            self._add("call", callee, node)
        asserting = _is_asserting_call(node)
        self.asserting += asserting
        self.via.append(callee if asserting else (self.via[-1] if self.via else ""))
        self.visit(node.func)
        for arg in node.args:
            self.visit(arg)
        for kw in node.keywords:
            if kw.arg:
                self._add("keyword", kw.arg, kw, owner=callee)
            hit = (kw.arg or "") in _ASSERTING_KEYWORDS
            self.asserting += hit
            self.via.append(kw.arg or "" if hit else self.via[-1])
            self.visit(kw.value)
            self.via.pop()
            self.asserting -= hit
        self.via.pop()
        self.asserting -= asserting

    def visit_Assign(self, node: ast.Assign) -> None:
        target = node.targets[0]
        self.assign_target = target.id if isinstance(target, ast.Name) else ""
        self.generic_visit(node)
        self.assign_target = ""

    def visit_alias(self, node: ast.alias) -> None:
        # `from pkg import new_helper` names the fix's definition even before any call.
        self._add("name", node.name.rpartition(".")[2], node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._add("attr", node.attr, node, owner="store" if isinstance(node.ctx, ast.Store) else "")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            # Module constants (unindented or UPPER_CASE) are API; other stores are locals.
            start, _ = self._span(node)
            kind = "assign" if start in self.top_level or node.id.isupper() else "local"
            self._add(kind, node.id, node)
            return
        self._add("name", node.id, node, owner=self.via[-1] if self.asserting and self.via else "")

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            start, end = self._span(node)
            self.out.strings.append(
                StringLit(
                    node.value,
                    start,
                    end,
                    asserted=self.asserting > 0,
                    docstring=id(node) in self.docstrings,
                    assigned_to=self.assign_target,
                    source=self.text.get(start, ""),
                    via=self.via[-1] if self.asserting and self.via else "",
                )
            )


def _from_tokens(fragment: Fragment, out: Symbols) -> None:
    previous: tokenize.TokenInfo | None = None
    for index, (number, token) in enumerate(fragment.tokens):
        source = token.line.strip()
        if token.type == tokenize.NAME and not keyword.iskeyword(token.string):
            kind = "name"
            if previous is not None and previous.string in ("def", "class"):
                kind = "def" if previous.string == "def" else "class"
            following = fragment.tokens[index + 1][1] if index + 1 < len(fragment.tokens) else None
            starts_line = previous is None or previous.start[0] != token.start[0]
            if following is not None and following.string == "=":
                if previous is not None and previous.string in ("(", ","):
                    kind = "keyword"
                elif starts_line:
                    kind = "local"
            elif previous is not None and previous.string == ".":
                kind = "attr"
            elif previous is not None and previous.string == "for":
                kind = "local"
            out.names.append(Symbol(kind, token.string, number, number, "", source))
        elif token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                value = token.string.strip("'\"")
            if isinstance(value, str):
                asserted = "assert" in source or "match=" in source or "raises" in source
                out.strings.append(StringLit(value, number, number, asserted, False, "", source))
        previous = token


def collect(fragments: list[Fragment]) -> Symbols:
    """Symbols of every fragment of one file image (line numbers are image lines)."""
    out = Symbols()
    for fragment in fragments:
        if fragment.tree is not None:
            _Collector(fragment, out).visit(fragment.tree)
        else:
            _from_tokens(fragment, out)
    return out

"""Strings a fix passes to a function that only puts them in a message: sphinx-10819 calls
`split_into(2, 'single', value)`, and `split_into` reads its `type` only to say what it could
not split. A mutant of such a string changes an error's text, not what the fix does: it is
proven equivalent before any run.

The called function is found by name in the repository at the base commit (the fix's own
files as fixed): every definition of that name must read the parameter only in messages.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable
from pathlib import Path

import libcst as cst

from spice_engine.strength.choose import Choice
from spice_engine.strength.equivalence import span
from spice_engine.strength.message_flow import message_parameter
from spice_engine.validate.gitwork import GitError, git

MAX_FILES = 20
"""Files defining the name read at most (a name defined in more is not a helper of its own)."""
Sources = Callable[[str], dict[str, str]]
"""A function's name -> the sources (path -> text) of the files that define it."""


def _parameter(function: cst.FunctionDef, position: int, keyword: str, method: bool) -> str:
    """The name of the parameter an argument lands on ("" when it cannot be told)."""
    params = [*function.params.posonly_params, *function.params.params]
    if keyword:
        names = {p.name.value for p in [*params, *function.params.kwonly_params]}
        return keyword if keyword in names else ""
    if method:  # `obj.f(x)`: a method's first parameter is bound to `obj`
        if not params or params[0].name.value not in ("self", "cls"):
            return ""
        params = params[1:]
    return params[position].name.value if position < len(params) else ""


def _definitions(source: str, name: str) -> list[cst.FunctionDef]:
    """The functions named `name` in `source`: found with Python's own parser, each parsed
    alone by libcst (a whole large file costs libcst a fifth of a second or more)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return _parsed_whole(source, name)
    rows = source.splitlines(keepends=True)
    found: list[cst.FunctionDef] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            first, last = span(node)
            text = textwrap.dedent("".join(rows[first - 1 : last]))
            try:
                parsed = cst.parse_module(text).body
            except cst.ParserSyntaxError:  # a string with lines less indented than its def
                return _parsed_whole(source, name)
            found += [d for d in parsed if isinstance(d, cst.FunctionDef)]
    return found


def _parsed_whole(source: str, name: str) -> list[cst.FunctionDef]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return []
    found: list[cst.FunctionDef] = []

    class _Find(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node.name.value == name:
                found.append(node)

    module.visit(_Find())
    return found


def message_only(
    argument: tuple[str, int, str], definitions: Callable[[str], list[cst.FunctionDef]]
) -> str:
    """Why a string passed as `argument` (callee, position, keyword) changes only a message
    ("" when that is not shown: no definition found, or one that uses it otherwise)."""
    dotted, position, keyword = argument
    callee, method = dotted.lstrip("."), dotted.startswith(".")
    found = definitions(callee) if callee else []
    if not found:
        return ""
    for function in found:
        name = _parameter(function, position, keyword, method)
        if not name or not message_parameter(function, name):
            return ""
    return f"only a message reads it: `{callee}()` says its `{name}` and does nothing else with it"


def repository_sources(git_dir: Path, commit: str, fixed: dict[str, str]) -> Sources:
    """`Sources` from the repository at `commit` (its bare git directory: the host's git,
    never a checkout), the fix's own files as fixed."""
    cache: dict[str, dict[str, str]] = {}

    def sources(name: str) -> dict[str, str]:
        if name not in cache:
            pattern = rf"def {name}\b"
            found = {p: t for p, t in fixed.items() if p.endswith(".py") and f"def {name}" in t}
            try:
                listed = git(git_dir, "grep", "-l", "-E", "-e", pattern, commit, "--", "*.py")
            except GitError:  # no match (exit 1), or a commit it cannot read
                listed = ""
            for line in listed.splitlines()[:MAX_FILES]:
                path = line.split(":", 1)[1] if ":" in line else line
                if path not in found:
                    found[path] = git(git_dir, "show", f"{commit}:{path}")
            cache[name] = found
        return cache[name]

    return sources


def set_aside(choice: Choice, sources: Sources) -> None:
    """Chosen string mutants that only change a message a called function says: proven."""
    parsed: dict[str, list[cst.FunctionDef]] = {}

    def definitions(name: str) -> list[cst.FunctionDef]:  # each file parsed once per name
        if name not in parsed:
            parsed[name] = [d for text in sources(name).values() for d in _definitions(text, name)]
        return parsed[name]

    kept = []
    for c in choice.chosen:
        passed = c.site.argument if c.site.operator == "string" else None
        why = message_only(passed, definitions) if passed else ""
        if why:
            choice.proven.append((c, why))
        else:
            kept.append(c)
    choice.chosen = kept

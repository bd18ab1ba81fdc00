"""The Python an issue gives as its example: what a reporter ran to show the bug, read from the
issue's code blocks, to be run again under the fix and under each survivor
(spice_engine.strength.issue_examples).

A block counts when its fence names Python (`python`, `py`, `pycon`, `python3`, `ipython`) or
names nothing, and it holds Python: a console session (`>>> ` prompts, read by the standard
library's doctest parser, the outputs the reporter saw left out; an IPython session's `In [n]:`
inputs alike) or a script that parses and
calls something. A console session written outside any block (Markdown reads its prompts as
quotes) is one more example, its inputs taken in order. An example that imports nothing ran in
the project's own interactive namespace (sympy's `isympy`, a `from sympy import *` session):
it is run after an import of the package the fix changes, by name and with a star. A traceback, a shell session or output pasted in a block does not parse and
is left out. The text is the issue's (hostile): it is only ever run in the sandbox, like the
repository's tests.
"""

from __future__ import annotations

import ast
import doctest
import re
import warnings
from collections.abc import Sequence

from markdown_it import MarkdownIt

PYTHON_FENCES = {"", "python", "py", "pycon", "python3", "py3", "ipython", "doctest"}
MAX_SNIPPETS = 6
MAX_CHARS = 8000
"""What of an issue is run at most (its first blocks): a reporter's example is short."""


def python_snippets(problem: str, changed: Sequence[str] = ()) -> list[str]:
    """The issue's Python examples, in the issue's order (run one after another in one
    namespace, as a reporter's session goes on from block to block); `changed`: the files the
    fix changes, whose package an example importing nothing is given."""
    pieces: list[tuple[int, str]] = []  # (first line, text), in the order
    lines = problem.splitlines(keepends=True)
    for token in MarkdownIt("commonmark").parse(problem):
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        first, last = token.map
        lines[first:last] = [""] * (last - first)  # not read again as loose prompts
        fence = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
        if fence in PYTHON_FENCES:
            pieces.append((first, token.content))
    loose: list[str] = []
    for n, line in enumerate([*lines, ""]):
        if line.lstrip().startswith((">>>", "...")):
            loose.append(line.lstrip())
        elif loose:
            pieces.append((n - len(loose), "".join(loose)))
            loose = []
    found: list[str] = []
    total = 0
    for _, piece in sorted(pieces):
        source = _as_python(piece)
        if source is None or total + len(source) > MAX_CHARS:
            continue
        found.append(source)
        total += len(source)
        if len(found) == MAX_SNIPPETS:
            break
    package = _package(changed)
    if found and package and not any(_imports(f) for f in found):
        found.insert(0, f"import {package}\nfrom {package} import *\n")
    return found


_IPYTHON_INPUT = re.compile(r"^In \[\d+\]: ", re.MULTILINE)
_IPYTHON_MORE = re.compile(r"^\s+\.\.\.+: ?")


def _ipython_inputs(block: str) -> str:
    """An IPython session's inputs (`In [3]: x` and its `   ...: ` lines); its `Out[3]:`
    and whatever else it printed left out. (IPython's own reader is not installed here.)"""
    lines, inside = [], False
    for line in block.splitlines():
        if _IPYTHON_INPUT.match(line):
            lines.append(_IPYTHON_INPUT.sub("", line, count=1))
            inside = True
        elif inside and _IPYTHON_MORE.match(line):
            lines.append(_IPYTHON_MORE.sub("", line, count=1))
        else:
            inside = False
    return "\n".join(lines) + "\n"


def _package(changed: Sequence[str]) -> str | None:
    """The top-level package the changed files belong to (`sympy/core/basic.py` -> `sympy`,
    `src/_pytest/nodes.py` -> `_pytest`), when they agree on one."""
    found = set()
    for path in changed:
        parts = path.split("/")
        if parts[0] in ("src", "lib") and len(parts) > 2:
            parts = parts[1:]
        if len(parts) > 1 and parts[-1].endswith(".py") and parts[0].isidentifier():
            found.add(parts[0])
    return found.pop() if len(found) == 1 else None


def _imports(source: str) -> bool:
    tree = ast.parse(source)
    return any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.walk(tree))


def _as_python(block: str) -> str | None:
    """The block as Python source (a console session's inputs), or None: no Python that
    calls anything."""
    if _IPYTHON_INPUT.search(block):
        block = _ipython_inputs(block)
    if ">>>" in block:
        try:
            examples = doctest.DocTestParser().get_examples(block)
        except ValueError:  # a prompt without its space, a bad continuation line
            return None
        source = "".join(e.source for e in examples)
    else:
        source = block
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape in the text
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    calls = any(isinstance(node, ast.Call) for node in ast.walk(tree))
    return source if calls else None

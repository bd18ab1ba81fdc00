"""Code references in an issue: file paths, dotted module paths and identifiers, by shape."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from spice_engine.issue_signals.facts import Frame, without_traceback
from spice_engine.issue_signals.markdown_parts import IssueParts

_CODE_EXT = (
    "py|pyi|pyx|pxd|c|h|cc|cpp|hpp|js|ts|jsx|tsx|go|rs|java|rb|cfg|ini|toml|rst|txt|json|"
    "ya?ml|html|css|md|sh|in|po|tex"
)
_PATH = re.compile(rf"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+(?:\.[\w-]+)*\.(?:{_CODE_EXT}))(?![\w/])")
_DOTTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,})(?![\w(])")
_CALL = re.compile(r"(?<![\w.])((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\(")
_SNAKE = re.compile(r"(?<![\w.])(_*[a-z][a-z0-9]*(?:_+[a-z0-9]+)+_*|__\w+__)(?![\w(])")
_CAMEL = re.compile(
    r"(?<![\w.])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z]+(?:[A-Z][a-z0-9]+)+)(?![\w])"
)
_QUALIFIED = re.compile(r"(?<![\w.])([A-Z]\w*\.[a-z_]\w*)(?![\w])")
_URL = re.compile(r"\S+://\S+")
# Function-call shapes that are English or Python built-ins, not pointers into a codebase.
_NOT_POINTERS = frozenset(
    [
        "print",
        "len",
        "str",
        "int",
        "float",
        "list",
        "dict",
        "set",
        "tuple",
        "type",
        "isinstance",
        "range",
        "repr",
        "open",
        "e",
        "g",
        "i",
        "e.g",
        "i.e",
        "etc",
    ]
)


@dataclass
class Mentions:
    """Code references, split by where they appear (prose speaks of the code; code uses it)."""

    paths: list[str] = field(default_factory=list)
    """File names or paths with a source-file extension."""
    modules: list[str] = field(default_factory=list)
    """Dotted paths with three or more parts (`django.db.models.deletion`)."""
    functions: list[str] = field(default_factory=list)
    """Callables and methods named in prose or inline code (`foo()`, `Cls.meth`, `_private`)."""
    classes: list[str] = field(default_factory=list)
    """CamelCase names in prose or inline code."""
    code_calls: list[str] = field(default_factory=list)
    """Callables used inside code blocks (the reporter's usage, not a pointer)."""
    line_refs: list[str] = field(default_factory=list)
    """`line 42`, `file.py:42`, `L42`-style references."""


def _uniq(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


_LINE_REF = re.compile(r"\blines?\s+#?\d+(?:\s*[-–]\s*\d+)?\b|\.py:\d+\b|#L\d+\b|:\d+-\d+\b", re.I)


def find_mentions(parts: IssueParts, stack: list[Frame]) -> Mentions:
    """Collect the paths and identifiers an issue names, deduplicated, in order of appearance."""
    speech = [_URL.sub(" ", t) for t in (parts.prose + parts.inline_code)]
    text = "\n".join(speech)
    m = Mentions()
    m.paths = _uniq(_PATH.findall(text))
    m.modules = _uniq([d for d in _DOTTED.findall(text) if not _PATH.fullmatch(d)])
    calls = [c for c in _CALL.findall(text) if c.lower() not in _NOT_POINTERS]
    m.functions = _uniq(calls + _SNAKE.findall(text) + _QUALIFIED.findall(text))
    m.classes = _uniq(_CAMEL.findall(text))
    # Calls the reporter writes, not the ones a quoted traceback shows (those are frames).
    code = _URL.sub(" ", "\n".join(ln for b in parts.blocks for ln in without_traceback(b.lines)))
    m.code_calls = _uniq([c for c in _CALL.findall(code) if c.lower() not in _NOT_POINTERS])
    m.line_refs = _uniq([r.strip() for r in _LINE_REF.findall(text)])
    for frame in stack:
        if frame.in_library:
            m.paths = _uniq([*m.paths, frame.path])
    return m

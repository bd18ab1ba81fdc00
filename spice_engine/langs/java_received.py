"""A Java test file that records what each of its calls got back (spice_engine.strength
.received): every method call whose value the file uses (an argument, an assignment, a
condition, a receiver) becomes `W.got("<id>", call)`, which walks the value (spice_engine.langs
.java_walker), appends a hashed line to `/tmp/<mark>` and returns it unchanged; an overload per
primitive keeps `int` an `int`, so overloads the file calls resolve as before.

A call standing alone as a statement or a `for`'s update (its value dropped, perhaps `void`)
and a lambda's body (perhaps `void`) are left. The first 200 values of each call site; each id is the file and the
call's line and column, and every line keeps its number.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

from spice_engine.langs.java_trace import java_string
from spice_engine.langs.java_walker import helper
from spice_engine.langs.trace_edits import Edit, ident, parsed, spliced

DROPPED = frozenset({"expression_statement", "lambda_expression", "for_statement"})
"""Where a call's value may be `void` (a statement, a lambda's body, a `for`'s update): not
recorded."""


def received(source: str, tag: str, mark: str) -> str | None:
    """`source` recording what its calls got back (None: it holds no such call, or does not
    parse)."""
    raw = source.encode()
    tree = parsed("java", source)
    if tree.root_node.has_error:
        return None
    cls = "SpiceGot" + hashlib.sha256(raw).hexdigest()[:8]
    opened: dict[int, list[tuple[int, str]]] = {}
    closed = Counter[int]()
    for call in _calls(tree.root_node):
        site = java_string(f"{ident(tag, call)}:{call.end_byte}")
        span = call.end_byte - call.start_byte
        opened.setdefault(call.start_byte, []).append((span, f"{cls}.got({site}, "))
        closed[call.end_byte] += 1
    if not opened:
        return None
    # `a.b().c()` and `a.b()` start at one byte: the outer call's opening goes first.
    edits = [
        Edit(at, at, "".join(text for _, text in sorted(found, reverse=True)))
        for at, found in opened.items()
    ]
    edits += [Edit(at, at, ")" * n) for at, n in closed.items()]
    edits.append(Edit(len(raw), len(raw), "\n" + helper(cls, mark)))
    return spliced(raw, edits)


def _calls(root: Any) -> list[Any]:
    found: list[Any] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "method_invocation" and node.parent.type not in DROPPED:
            found.append(node)
        stack += node.named_children
    return found

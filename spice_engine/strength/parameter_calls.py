"""A call left out that goes through a parameter: the callback, handler or object the function's
caller gave it. go-zero-2363's middleware returns `func(w, r) { …; defer func() {
next.ServeHTTP(w, r) }() }`, `next` being `TracingHandler`'s parameter: left out, the handler the
caller gave is never called — a difference every caller sees, in its own code, though the
tests' `next` does nothing and so nothing they look at changes. A statement left out is held
when nothing showed a caller a difference (spice_engine.strength.decision_probe); such a call is
not, its line's run being the evidence.

A traced call (spice_engine.strength.traced) walks what its function was given, returned and
left behind: a parameter of the function itself is walked (a difference left in it shows, and
its answering alike holds the survivor as before); one captured from a function around it is
not, so the trace is not asked.

The callee's first name (`next` of `next.ServeHTTP`, `callback` of `callback(x)`) must be a
parameter of the function holding the call or of one around it: a package (`logx.Close()`), the
receiver (`self.`, `this.`, a Go method's) or a local stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spice_engine.langs.base import Language
from spice_engine.langs.trace_edits import holding, parsed
from spice_engine.strength.call_receivers import CALLS
from spice_engine.strength.choose import Choice, Chosen
from spice_engine.strength.line_probe import mutated_at

FUNCTIONS = frozenset(
    {"function_declaration", "method_declaration", "func_literal"}  # Go, Java
    | {"function_item", "closure_expression"}  # Rust
    | {"constructor_declaration", "lambda_expression"}  # Java, C++
    | {"function_expression", "arrow_function", "method_definition"}  # JavaScript
    | {"function_definition"}  # C, C++
)


@dataclass(frozen=True)
class Called:
    """The parameter a left-out call goes through."""

    name: str
    captured: bool
    """A parameter of a function around the one holding the call (one its traced calls do not
    walk), not of that function itself."""


def left_out_through(language: Language, choice: Choice, c: Chosen) -> Called | None:
    """The parameter the statement the mutant `c` leaves out calls through, if it does."""
    grammar, fixed = language.grammar(c.path), choice.originals[c.path]
    return None if grammar is None else called_parameter(grammar, fixed, mutated_at(fixed, c))


def called_parameter(grammar: str, source: str, at: int) -> Called | None:
    """The parameter the call of the statement starting at byte `at` goes through (None: no
    call there goes through one)."""
    raw = source.encode()
    root = parsed(grammar, source).root_node
    call = _call_at(root, at, len(raw))
    name = _first_name(call.child_by_field_name("function") or call) if call else None
    if name is None:
        return None
    function = holding(root, at, len(raw), FUNCTIONS)
    captured = False  # the function holding the call first, then each around it
    while function is not None:
        if name in _parameters(function):
            return Called(name, captured)
        function, captured = _enclosing(function.parent), True
    return None


def _call_at(root: Any, at: int, size: int) -> Any | None:
    """The first call of the largest node starting at `at` (a `defer`'s or `go`'s too)."""
    node = root.descendant_for_byte_range(at, at) if 0 <= at < size else None
    if node is None:
        return None
    while node.parent is not None and node.parent.start_byte == at:
        node = node.parent
    queue = [node]
    while queue:
        here = queue.pop(0)
        if here.type in CALLS:
            return here
        if here.type not in FUNCTIONS:  # a call in a function literal is not this statement's
            queue += here.named_children
    return None


def _first_name(node: Any) -> str | None:
    """The name a callee starts with (`next` of `next.ServeHTTP`; none for `this.f`, `self.f`,
    a call's result or a literal)."""
    while node.named_child_count and node.type != "identifier":
        node = node.named_children[0]
    return node.text.decode("utf-8", "replace") if node.type == "identifier" else None


def _enclosing(node: Any | None) -> Any | None:
    while node is not None and node.type not in FUNCTIONS:
        node = node.parent
    return node


def _parameters(function: Any) -> set[str]:
    """The names a function's parameters bind (a C function's through its declarator; a Java or
    JavaScript lambda's single bare parameter too)."""
    params = function.child_by_field_name("parameters") or function.child_by_field_name("parameter")
    declarator = function.child_by_field_name("declarator")
    while params is None and declarator is not None:
        params = declarator.child_by_field_name("parameters")
        declarator = declarator.child_by_field_name("declarator")
    if params is None:
        return set()
    if params.type == "identifier":
        return {params.text.decode("utf-8", "replace")}
    names: set[str] = set()
    stack = list(params.named_children)
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            names.add(node.text.decode("utf-8", "replace"))
            continue
        kind = node.child_by_field_name("type")  # `func(x int)` as a type binds no `x`
        stack += [c for c in node.named_children if kind is None or c.id != kind.id]
    return names

"""Integer constants that only ever stand for "true": moving one that is not 0 by one keeps it
true, so such a mutant cannot change what the fix does. A constant counts when it is itself a
condition (`while (1)`) or the value a local is given (`int sandbox = 1;`, `found = 1;`) where
every reading of that local in its function is a condition: the test of an `if`, a loop or a
`?:`, under `!`, or a side of `&&`/`||` (jq-3165's `sandbox`, set to 1 or 0 and read only by
`if (sandbox)`). A local whose address is taken, or that is read any other way, keeps its
mutants. Only C, C++ and JavaScript read an integer as a truth; elsewhere none is a condition.
"""

from __future__ import annotations

from typing import Any

_CONDITIONS = {"if_statement", "while_statement", "do_statement", "for_statement"}
_CHOICES = {"conditional_expression", "ternary_expression"}
_FUNCTIONS = ("function_definition", "function_declaration", "method_definition", "arrow_function")


def _truth(node: Any) -> bool:
    """Whether `node`'s value is read only as true or false where it stands."""
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "condition_clause"):
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type in _CONDITIONS or parent.type in _CHOICES:
        return parent.child_by_field_name("condition") == node
    if parent.type == "unary_expression":
        return parent.text.startswith(b"!")
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        return operator is not None and operator.text in (b"&&", b"||")
    return False


def _stored(node: Any) -> tuple[Any, str] | None:
    """(the local's declaration or assignment, its name) when `node` is the value given."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type in ("init_declarator", "variable_declarator"):  # C/C++, JavaScript
        name = parent.child_by_field_name("declarator") or parent.child_by_field_name("name")
    elif parent.type == "assignment_expression" and parent.child_by_field_name("right") == node:
        name = parent.child_by_field_name("left")
    else:
        return None
    if (
        name is None
        or name.type != "identifier"
        or parent.child_by_field_name("value")
        not in (
            None,
            node,
        )
    ):
        return None
    return parent, name.text.decode("utf-8", "replace")


def _function(node: Any) -> Any:
    while node is not None and not any(kind in node.type for kind in _FUNCTIONS):
        node = node.parent
    return node


def _readings(body: Any, name: str) -> list[Any]:
    """Every identifier `name` in `body` that is not the target of a declaration or store."""
    found, stack = [], [body]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node.text.decode("utf-8", "replace") == name:
            found.append(node)
        stack.extend(node.children)
    return [n for n in found if not _target(n)]


def _target(node: Any) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type in ("init_declarator", "variable_declarator"):
        return node in (
            parent.child_by_field_name("declarator"),
            parent.child_by_field_name("name"),
        )
    if parent.type == "declaration":  # `int found;`
        return True
    return parent.type == "assignment_expression" and parent.child_by_field_name("left") == node


def only_true(node: Any) -> bool:
    """Whether the integer constant `node` (not 0) is read only as a truth: a condition itself,
    or the value of a local that every reading in its function tests for truth."""
    if node.text.strip(b"0") == b"":
        return False  # 0 → 1 turns false into true
    if _truth(node):
        return True
    stored = _stored(node)
    body = _function(node)
    if stored is None or body is None:
        return False
    readings = _readings(body, stored[1])
    return bool(readings) and all(_truth(r) for r in readings)

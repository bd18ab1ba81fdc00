"""The receiver a method call without arguments is made on (`x.copy()` → `x`), in the
languages tree-sitter reads: what the wrong fix that forgets the call keeps
(spice_engine.strength.syntax_mutants)."""

from __future__ import annotations

from typing import Any

CALLS = ("call_expression", "method_invocation")
_MEMBERS = {
    "member_expression": "object",  # JavaScript, TypeScript
    "selector_expression": "operand",  # Go
    "field_expression": "value",  # Rust (C++'s is `argument`)
}
_SELVES = {"this", "self", "super", "Self"}


def _stringified(node: Any) -> bool:
    """Whether a value stands where Java's and JavaScript's `+` with a string, or a template's
    `${…}`, turns it into its text anyway (jackson-core-1172's `currentJsonPointer +
    tail.toString()`: without the call the same string, no wrong fix)."""
    parent = node.parent
    if parent is None:
        return False
    operator = parent.child_by_field_name("operator")
    plus = parent.type == "binary_expression" and operator is not None and operator.text == b"+"
    return plus or parent.type == "template_substitution"


def receiver_of(node: Any, copying: frozenset[str]) -> Any:
    """The receiver of a method call without arguments that is not a statement of its own
    (`x.copy()`, `s.trim()`, `v.clone()`), one of `copying`, nor a `toString()` whose value a
    string's `+` would stringify anyway, else None. C's `s->f()` calls a pointer, no method."""
    if node.type not in CALLS or getattr(node.parent, "type", "") == "expression_statement":
        return None
    arguments = node.child_by_field_name("arguments")
    if arguments is None or arguments.named_child_count:
        return None
    callee = node.text[: arguments.start_byte - node.start_byte].decode("utf-8", "replace")
    name = callee.rsplit(".", 1)[-1].strip()
    if name in copying or (name == "toString" and _stringified(node)):
        return None
    if node.type == "method_invocation":  # Java: the receiver is the call's own field
        receiver = node.child_by_field_name("object")
    else:
        member = node.child_by_field_name("function")
        field = _MEMBERS.get(getattr(member, "type", ""))
        receiver = member.child_by_field_name(field) if field else None
        if receiver is None and member is not None and member.type == "field_expression":
            receiver = member.child_by_field_name("argument")  # C++
    if receiver is None or receiver.text.decode("utf-8", "replace") in _SELVES:
        return None
    return receiver

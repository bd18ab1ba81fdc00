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


def receiver_of(node: Any, copying: frozenset[str]) -> Any:
    """The receiver of a method call without arguments that is not a statement of its own
    (`x.copy()`, `s.trim()`, `v.clone()`) nor one of `copying`, else None. C's `s->f()` calls a
    pointer, no method."""
    if node.type not in CALLS or getattr(node.parent, "type", "") == "expression_statement":
        return None
    arguments = node.child_by_field_name("arguments")
    if arguments is None or arguments.named_child_count:
        return None
    callee = node.text[: arguments.start_byte - node.start_byte].decode("utf-8", "replace")
    if callee.rsplit(".", 1)[-1].strip() in copying:
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

"""Where a truth value is read, in the languages tree-sitter reads: a condition, an operand of
`&&`/`||` or of `!` (spice_engine.strength.syntax_mutants)."""

from __future__ import annotations

from typing import Any

_CONDITIONS = frozenset(
    (
        "if_statement",
        "while_statement",
        "do_statement",
        "for_statement",
        "if_expression",
        "while_expression",
        "conditional_expression",
        "ternary_expression",
    )
)
UNTYPED = frozenset(("javascript", "typescript", "tsx"))
"""Grammars where any value stands as a condition (a receiver kept in place of `x.m()` there
builds, and is tested for truth)."""


def tested(node: Any) -> bool:
    """Whether `node` stands where a truth value is read: a condition (parentheses around it
    included), an operand of `&&`/`||`, or of `!`."""
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "condition_clause"):
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type in _CONDITIONS:
        return bool(parent.child_by_field_name("condition") == node)
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        return operator is not None and operator.text in (b"&&", b"||")
    return parent.type == "unary_expression" and parent.text.startswith(b"!")

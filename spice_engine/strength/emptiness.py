"""An emptiness test's `0` is not moved to `1`: `len(x) > 0` → `len(x) > 1` asks only whether
some test gives a one-element input (a one-character user, a one-line document), which is
another input than the issue's, by construction. go-zero-964's `len(c.User) > 0` pair (four
mutants, two lines) and sphinx-7923's one-line epilog were all judged edge, and shown or held
for that alone. The comparison's other mutants stay: `> 0` → `>= 0` (the test gone, always
true) and, in Python, `0` → `-1` are wrong on the empty input itself.

A length is a call of `len`, `strlen`, `wcslen`, or of a method or property named `len`,
`length`, `size`, `count`, `Len`, `Size`, `Count` (Go's `len(s)`, Rust's `s.len()`, Java's
`s.size()`, JavaScript's `s.length`), compared with the literal `0` by an ordering or equality.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

_LENGTH_FUNCTIONS = {"len", "strlen", "wcslen"}
_LENGTH_MEMBERS = {"len", "length", "size", "count", "Len", "Size", "Count"}
_COMPARING = {b"<", b"<=", b">", b">=", b"==", b"!=", b"===", b"!=="}
_PY_COMPARING = (
    cst.Equal,
    cst.NotEqual,
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
)
_WRAPS = {"parenthesized_expression"}
_CALLS = {"call_expression", "method_invocation", "call"}
_MEMBERS = {"member_expression", "field_expression", "field_access", "selector_expression"}


def _name(node: Any) -> str:
    """The last name of a callee or a member access (`s.len` → `len`, `len` → `len`)."""
    if node is None:
        return ""
    if node.type in _MEMBERS:
        last = (
            node.child_by_field_name("property")
            or node.child_by_field_name("field")
            or node.child_by_field_name("name")
        )
        return last.text.decode("utf-8", "replace") if last is not None else ""
    if node.type == "identifier":
        return node.text.decode("utf-8", "replace")
    return ""


def _is_length(node: Any) -> bool:
    while node is not None and node.type in _WRAPS and node.named_child_count == 1:
        node = node.named_children[0]
    if node is None:
        return False
    if node.type in _CALLS:
        if node.type == "method_invocation":  # Java: `s.size()`
            name = node.child_by_field_name("name")
            return name is not None and name.text.decode() in _LENGTH_MEMBERS
        callee = node.child_by_field_name("function")
        if callee is not None and callee.type == "identifier":
            return callee.text.decode() in _LENGTH_FUNCTIONS
        return _name(callee) in _LENGTH_MEMBERS
    return node.type in _MEMBERS and _name(node) in {"length", "size", "Len"}


def emptiness_zero(node: Any) -> bool:
    """Whether the tree-sitter `node` is the `0` a length is compared with."""
    if node.text != b"0":
        return False
    parent = node.parent
    while parent is not None and parent.type in _WRAPS:
        node, parent = parent, parent.parent
    if parent is None or parent.type not in ("binary_expression", "binary_operator"):
        return False
    operator = parent.child_by_field_name("operator")
    if operator is None or operator.text not in _COMPARING:
        return False
    left, right = parent.child_by_field_name("left"), parent.child_by_field_name("right")
    other = right if left is not None and left.id == node.id else left
    return _is_length(other)


def python_emptiness_zeros(comparison: cst.Comparison) -> set[int]:
    """The ids of the `0` literals `comparison` compares a `len(...)` (or `.count(...)`) with."""
    operands = [comparison.left, *(c.comparator for c in comparison.comparisons)]
    zeros: set[int] = set()
    for a, b, between in zip(operands, operands[1:], comparison.comparisons, strict=False):
        if not isinstance(between.operator, _PY_COMPARING):
            continue
        for zero, other in ((a, b), (b, a)):
            if isinstance(zero, cst.Integer) and zero.value == "0" and _python_length(other):
                zeros.add(id(zero))
    return zeros


def _python_length(node: cst.BaseExpression) -> bool:
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Name):
        return node.func.value == "len"
    return isinstance(node.func, cst.Attribute) and node.func.attr.value in _LENGTH_MEMBERS

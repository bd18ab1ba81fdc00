"""A bound moved across equality where both paths give the same value there, in the languages
tree-sitter reads, as Python's clamp proof does (spice_engine.strength.mutant_context): `x > MAX
? MAX : x` and `if (x > MAX) x = MAX;` hold the same value whether `x == MAX` takes one path or
the other, so `>` → `>=` (or `<` → `<=`, and back) cannot change what the fix does. jq-2821
clamps a slice's ends and an index into an int this way six times, and all six were shown as
wrong fixes.

Only plain operands count (names, fields, constants; a cast of the compared value, which
gives the bound back when it equals it: `(int)dstart`): a call could answer differently each
time it is asked.
"""

from __future__ import annotations

from typing import Any

_ORDERING = {b"<", b"<=", b">", b">="}
_CHOICES = {"conditional_expression", "ternary_expression"}
_IFS = {"if_statement", "if_expression"}
_WRAPS = {"parenthesized_expression", "condition_clause"}
_CASTS = {"cast_expression", "type_cast_expression"}
_BLOCKS = {"compound_statement", "block", "statement_list", "expression_statement"}
_ASSIGNMENTS = {"assignment_expression", "assignment_statement"}


def _bare(node: Any) -> Any:
    """`node` without parentheses or a cast around it, or a single-item list (Go's `x = y`)."""
    while node is not None:
        if node.type in _WRAPS or node.type == "expression_list":
            if node.named_child_count != 1:
                return node
            node = node.named_children[0]
        elif node.type in _CASTS:
            node = node.child_by_field_name("value")
        else:
            return node
    return node


def _plain(node: Any) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if "call" in current.type or "invocation" in current.type:
            return False
        stack.extend(current.children)
    return True


def _texts(*nodes: Any) -> list[bytes] | None:
    bare = [_bare(n) for n in nodes]
    if any(b is None or not _plain(b) for b in bare):
        return None
    return sorted(b.text for b in bare)


def _assignment(body: Any) -> Any:
    """The one assignment a branch's body is, else None."""
    while body is not None and body.type in _BLOCKS:
        if body.named_child_count != 1:
            return None
        body = body.named_children[0]
    return body if body is not None and body.type in _ASSIGNMENTS else None


def same_at_bound(comparison: Any) -> bool:
    """Whether `comparison` (`a < b`, …) decides between two paths that give the same value
    when `a == b`: a conditional expression choosing `a` or `b`, or an `if` without `else`
    whose body only assigns one of them to the other."""
    operator = comparison.child_by_field_name("operator")
    if operator is None or operator.text not in _ORDERING:
        return False
    compared = _texts(
        comparison.child_by_field_name("left"), comparison.child_by_field_name("right")
    )
    node, user = comparison, comparison.parent
    while user is not None and user.type in _WRAPS:
        node, user = user, user.parent
    if compared is None or user is None or user.child_by_field_name("condition") != node:
        return False
    if user.type in _CHOICES:
        arms = (user.child_by_field_name("consequence"), user.child_by_field_name("alternative"))
        return None not in arms and _texts(*arms) == compared
    if user.type not in _IFS or user.child_by_field_name("alternative") is not None:
        return False
    assigned = _assignment(user.child_by_field_name("consequence"))
    # `x = MAX`, not `x += MAX` nor Go's `x := MAX` (a new variable, in the branch alone).
    if assigned is None or [c.type for c in assigned.children if not c.is_named] != ["="]:
        return False
    sides = (assigned.child_by_field_name("left"), assigned.child_by_field_name("right"))
    return None not in sides and _texts(*sides) == compared

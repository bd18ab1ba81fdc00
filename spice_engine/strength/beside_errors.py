"""Go's zero values returned beside an error: `if err != nil { return false, err }`. By Go's
convention a caller given an error reads nothing else the call returned, so a mutant of such a
value (`false` → `true`) changes what no caller looks at (go-zero-990's `isLink`, whose only
caller returns on the error) — an arid node, as Google's mutation testing calls what it never
mutates, like a message's text (spice_engine.strength.syntax_messages).

Only where the error returned is surely one: the variable an enclosing `if X != nil` has just
tested, or an error built there (`fmt.Errorf`, `errors.New`). A value returned beside a variable
that may be nil (`return n, err` at a function's end) is what the caller gets when all went
well, and stays mutable; so is the returned error itself, and whether the `return` happens.
"""

from __future__ import annotations

from typing import Any

from spice_engine.strength.syntax_messages import builds_error

_BLOCKS = {"block", "statement_list"}


def beside_error(node: Any) -> bool:
    """Whether `node` is a value a Go `return` gives beside an error it surely returns (every
    result but the last of such a `return`)."""
    values = node.parent
    if values is None or values.type != "expression_list":
        return False
    returned = values.parent
    if returned is None or returned.type != "return_statement":
        return False
    given = [c for c in values.named_children if c.type != "comment"]
    if len(given) < 2 or node == given[-1] or node not in given:
        return False
    error = given[-1]
    if error.type == "call_expression":
        return builds_error(error)
    return error.type == "identifier" and _tested_non_nil(returned, error.text)


def _tested_non_nil(statement: Any, name: bytes) -> bool:
    """Whether `statement` sits in the body of an `if name != nil` (blocks only in between:
    not in a loop or a closure, where `name` may have been assigned again)."""
    node = statement.parent
    while node is not None and node.type in _BLOCKS:
        body, node = node, node.parent
        if node is not None and node.type == "if_statement":
            return node.child_by_field_name("consequence") == body and _non_nil(
                node.child_by_field_name("condition"), name
            )
    return False


def _non_nil(condition: Any, name: bytes) -> bool:
    if condition is None or condition.type != "binary_expression":
        return False
    left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
    operator = condition.child_by_field_name("operator")
    return (
        operator is not None
        and operator.text == b"!="
        and {left.type, right.type} == {"identifier", "nil"}
        and name in (left.text, right.text)
    )

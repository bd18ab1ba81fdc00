"""A C or C++ array's declared length is not moved up by one (`unsigned char unicode[4]` ->
`[5]`): the longer array holds the same elements, and every access that was in bounds still
is, so no behaviour changes unless something measures the array (`sizeof unicode`, its bytes
copied or cleared by size), which keeps the mutant. jq-3161's decoding buffer was shown as a
wrong fix for this alone ("the buffer one byte larger: the same octets are read and written").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def longer_array(node: Any) -> bool:
    """Whether `node` (an integer constant) is the length an array is declared with, in a
    function where nothing takes that array's size."""
    parent = node.parent
    if getattr(parent, "type", "") != "array_declarator":
        return False
    size, name = parent.child_by_field_name("size"), parent.child_by_field_name("declarator")
    while name is not None and name.type == "array_declarator":  # `grid[2][3]`
        name = name.child_by_field_name("declarator")
    if size is None or size.id != node.id or name is None or name.type != "identifier":
        return False
    scope = parent
    while scope.parent is not None and scope.type != "function_definition":
        scope = scope.parent
    return not any(_names(measured, name.text) for measured in _sizeofs(scope))


def _sizeofs(node: Any) -> Iterator[Any]:
    if node.type in ("sizeof_expression", "alignof_expression"):
        yield node
        return
    for child in node.named_children:
        yield from _sizeofs(child)


def _names(node: Any, name: bytes) -> bool:
    if node.type == "identifier" and node.text == name:
        return True
    return any(_names(child, name) for child in node.named_children)

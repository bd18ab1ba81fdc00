"""A private attribute's name that a function holds in one local and uses only through
`getattr`/`setattr`/`hasattr`/`delattr` (pytest-9646's once-per-class marker,
`attr_name = "_pytest_diamond_inheritance_warning_shown"`). A mutant of that string renames the
attribute everywhere the function touches it; when nothing else in the repository, the fix or
its tests names it, no caller can tell: the mutant is proven equivalent before any run.

(Two literals of the same name, one in the `getattr` and one in the `setattr`, are not this: a
mutant of one of them breaks the pair.)
"""

from __future__ import annotations

import libcst as cst

REFLECTION = {"getattr", "setattr", "hasattr", "delattr"}


class _Uses(cst.CSTVisitor):
    """Each local name's assigned values, and whether every reading of it is the name
    argument of a reflection call."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, list[cst.BaseExpression]] = {}
        self.only_named: dict[str, bool] = {}
        self._targets: set[int] = set()
        self._naming: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._targets.add(id(target.target))
                self.values.setdefault(target.target.value, []).append(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func, args = node.func, node.args
        reflects = isinstance(func, cst.Name) and func.value in REFLECTION and len(args) >= 2
        if reflects and args[1].keyword is None and not args[1].star:
            self._naming.add(id(args[1].value))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._targets:
            kept = self.only_named.get(node.value, True)
            self.only_named[node.value] = kept and id(node) in self._naming


def attribute_names(function: cst.FunctionDef) -> dict[int, str]:
    """Node id of a string -> the private attribute name it holds, for each local assigned
    once a string and read only as a reflection call's name."""
    uses = _Uses()
    function.body.visit(uses)
    found: dict[int, str] = {}
    for name, values in uses.values.items():
        if len(values) != 1 or not uses.only_named.get(name, False):
            continue
        (value,) = values
        if isinstance(value, cst.SimpleString):
            text = value.evaluated_value
            if isinstance(text, str) and text.startswith("_") and text.isidentifier():
                found[id(value)] = text
    return found

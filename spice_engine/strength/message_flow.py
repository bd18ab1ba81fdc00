"""Values a function computes only to say something: a local name whose every reading is in a
message (the arguments of what is raised, a warning, a log call, an assertion's message), or
in the value of another such name. Mutating what such a name holds changes the text of a
message, not what the fix does (pytest-9646 joins the bases of a class with `", "` only to
warn about them)."""

from __future__ import annotations

import libcst as cst

LOGGING = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}


def _last_name(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def is_message_call(call: cst.Call) -> bool:
    """`warnings.warn(...)`, `log.debug(...)`, `logger.info(...)`, `logging.error(...)`."""
    func = call.func
    if _last_name(func) == "warn":
        return True
    if isinstance(func, cst.Attribute) and func.attr.value in LOGGING:
        return "log" in cst.Module([]).code_for_node(func.value).lower()
    return False


class _Readings(cst.CSTVisitor):
    """Each local name's assigned values and, for each reading of it, the message it is in
    (or the name whose value it is part of, or neither)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, list[cst.BaseExpression]] = {}
        self.readings: dict[str, list[str | bool]] = {}
        """name -> per reading: True inside a message, a name inside that name's value, False."""
        self._roots: set[int] = set()
        self._message = 0
        self._into: list[str] = []
        self._targets: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._roots or (isinstance(node, cst.Call) and is_message_call(node)):
            self._message += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if id(original_node) in self._roots or (
            isinstance(original_node, cst.Call) and is_message_call(original_node)
        ):
            self._message -= 1

    def visit_Raise(self, node: cst.Raise) -> None:
        if isinstance(node.exc, cst.Call):
            self._roots.update(id(arg) for arg in node.exc.args)

    def visit_Assert(self, node: cst.Assert) -> None:
        if node.msg is not None:
            self._roots.add(id(node.msg))

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target
            self._targets.add(id(name))
            self.values.setdefault(name.value, []).append(node.value)
            self._into.append(name.value)
        else:
            self._into.append("")

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._into.pop()

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._targets:
            return
        where: str | bool = bool(self._message) or (self._into[-1] if self._into else False)
        self.readings.setdefault(node.value, []).append(where or False)


def _only_messages(seen: _Readings, names: set[str]) -> set[str]:
    """Of `names`, those read only by messages and by the values of such names."""
    only = {n for n in names if seen.readings.get(n)}
    while True:
        kept = {n for n in only if all(r is True or r in only for r in seen.readings[n])}
        if kept == only:
            return only
        only = kept


def message_values(function: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The values assigned to the function's names that only messages read."""
    seen = _Readings()
    function.visit(seen)
    only = _only_messages(seen, set(seen.values))
    return [value for n in sorted(only) for value in seen.values[n]]


def message_parameter(function: cst.FunctionDef, name: str) -> bool:
    """True when the function reads its parameter `name` only to say something (it never
    assigns it anew): what a caller passes there changes a message, not what it does."""
    seen = _Readings()
    function.body.visit(seen)
    if name in seen.values:
        return False
    return name in _only_messages(seen, set(seen.values) | {name})

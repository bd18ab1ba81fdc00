"""Values a function computes only to say something: a local name whose every reading is in a
message (the arguments of what is raised, a warning, a log call, an assertion's message), or
in the value of another such name. Mutating what such a name holds changes the text of a
message, not what the fix does.

A name also tested for truth (`if problems:`) keeps its value's mutants, but for the text no
change of it can empty or fill: a non-empty separator of `.join` or piece of a `+`
(pytest-9646 joins the bases of a class with `", "`, warns when there are any, and says them).
"""

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
        """name -> per reading: True inside a message, a name inside that name's value, TRUTH
        as the whole test of an `if`, `while` or conditional expression (or under its `not`),
        False."""
        self._roots: set[int] = set()
        self._message = 0
        self._into: list[str] = []
        self._targets: set[int] = set()
        self._truths: set[int] = set()

    def _tested(self, test: cst.BaseExpression) -> None:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        self._truths.add(id(test))

    def visit_If(self, node: cst.If) -> None:
        self._tested(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._tested(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._tested(node.test)

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
        if id(node) in self._truths and not where:
            where = TRUTH
        self.readings.setdefault(node.value, []).append(where or False)


TRUTH = "<truth>"  # not a name: a reading as a test's whole condition


def _only_messages(seen: _Readings, names: set[str], tested: bool = False) -> set[str]:
    """Of `names`, those read only by messages and by the values of such names (and, when
    `tested`, as a test's whole condition)."""
    only = {n for n in names if seen.readings.get(n)}
    allowed = {True, TRUTH} if tested else {True}
    while True:
        kept = {n for n in only if all(r in allowed or r in only for r in seen.readings[n])}
        if kept == only:
            return only
        only = kept


def _fixed_text(value: cst.BaseExpression) -> list[cst.SimpleString]:
    """Non-empty strings in `value` that no `"XX…XX"` can empty or fill: the separator `.join`
    is called on, and the pieces of a `+`."""
    found: list[cst.SimpleString] = []

    class _Texts(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "join":
                found.append(func.value)  # type: ignore[arg-type]

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.operator, cst.Add):
                found.extend((node.left, node.right))  # type: ignore[arg-type]

    value.visit(_Texts())
    return [
        s for s in found if isinstance(s, cst.SimpleString) and s.evaluated_value not in ("", b"")
    ]


def message_values(function: cst.FunctionDef) -> list[cst.CSTNode]:
    """The values assigned to the function's names that only messages read, and the fixed
    text in those that only messages and tests of their truth read."""
    seen = _Readings()
    function.visit(seen)
    only = _only_messages(seen, set(seen.values))
    tested = _only_messages(seen, set(seen.values), tested=True) - only
    values: list[cst.CSTNode] = [value for n in sorted(only) for value in seen.values[n]]
    return values + [s for n in sorted(tested) for v in seen.values[n] for s in _fixed_text(v)]


def message_parameter(function: cst.FunctionDef, name: str) -> bool:
    """True when the function reads its parameter `name` only to say something (it never
    assigns it anew): what a caller passes there changes a message, not what it does."""
    seen = _Readings()
    function.body.visit(seen)
    if name in seen.values:
        return False
    return name in _only_messages(seen, set(seen.values) | {name})

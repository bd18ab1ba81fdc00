"""Where a mutation site is: the function around it, and whether the code can matter.

Code that cannot change what a fix does is never mutated: type-only code (annotations, the
body of `if TYPE_CHECKING:`, `@overload` stubs, `TypedDict` and `Protocol` bodies), docstrings,
and the text of messages (exceptions raised, warnings, log calls, assertion messages). Some
mutants are equivalent by construction and are marked with the proof: the arguments of a
symmetric function swapped, a membership string padded with `XX`, and a boundary (`<` ↔ `<=`)
where both paths return the same value when the two sides are equal (`clamp`'s
`if x < lo: return lo`).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from spice_engine.strength.attribute_names import attribute_names
from spice_engine.strength.emptiness import python_emptiness_zeros
from spice_engine.strength.message_flow import is_message_call, message_values

TYPE_ONLY_BASES = {"TypedDict", "Protocol"}
SYMMETRIC = {
    "max", "min", "hypot", "gcd", "lcm", "isclose", "maximum", "minimum", "fmax", "fmin",
    "logical_and", "logical_or", "logical_xor", "array_equal", "array_equiv", "eq", "ne",
    "add", "mul", "and_", "or_", "xor",
}  # fmt: skip
"""Functions whose first two arguments commute (swapping them changes nothing)."""
ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def bare(node: cst.CSTNode) -> cst.CSTNode:
    """An expression without its own parentheses (what the source positions cover)."""
    if isinstance(node, cst.BaseExpression) and (node.lpar or node.rpar):
        return node.with_changes(lpar=[], rpar=[])
    return node


def _name(node: cst.CSTNode) -> str:
    """The last name of `a.b.c` or `c`."""
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def _returned(block: cst.BaseSuite) -> str | None:
    """The code of `X` when the block is `return X` alone."""
    body = block.body
    if len(body) != 1:
        return None
    line = body[0]
    if isinstance(block, cst.IndentedBlock):
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        line = line.body[0]
    if isinstance(line, cst.Return) and line.value is not None:
        return code(line.value).strip()
    return None


def _sides(test: cst.BaseExpression) -> set[str] | None:
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, ORDERING)
    ):
        return {code(test.left).strip(), code(test.comparisons[0].comparator).strip()}
    return None


def boundary_equal(node: cst.If, rest: list[cst.BaseStatement]) -> bool:
    """`if a < b: return a|b` whose other path returns `a` or `b` too (after guards that
    return): at `a == b` the mutant `<=` returns the same value."""
    sides = _sides(node.test)
    if sides is None or _returned(node.body) not in sides:
        return False
    other: cst.CSTNode | None = node.orelse
    while isinstance(other, cst.If):  # an elif chain: guards that return, then the rest
        if _returned(other.body) is None:
            return False
        other = other.orelse
    if isinstance(other, cst.Else):
        return _returned(other.body) in sides
    for stmt in rest:
        if isinstance(stmt, cst.If) and stmt.orelse is None and _returned(stmt.body) is not None:
            continue
        return _returned(cst.IndentedBlock([stmt])) in sides
    return False


class Context(cst.CSTTransformer):
    """Tracks, while a mutator walks a module, what its sites are inside."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self._functions: list[str] = []
        self._bodies: set[int] = set()
        self._depth = 0  # inside how many function bodies
        self._elifs: set[int] = set()
        self._tests: set[int] = set()
        self._fixed_strings: set[int] = set()
        self._inert: list[int] = []
        """Ids of the enclosing nodes whose code cannot matter (type-only, messages)."""
        self._messages: set[int] = set()
        """Ids of the arguments of what is raised, and of assertion messages."""
        self.emptiness_zeros: set[int] = set()
        """Ids of the `0`s a length is compared with (spice_engine.strength.emptiness)."""
        self.attribute_names: dict[int, str] = {}
        """Node id -> the private attribute name a string holds (see attribute_names)."""
        self.arguments: dict[int, tuple[str, int, str]] = {}
        """Node id -> (callee, position, keyword) of a string passed straight to a call."""
        self.proofs: dict[int, str] = {}
        """Node id -> why a mutant of it is equivalent (the nodes it applies to)."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._is_inert(node):
            self._inert.append(id(node))
        return super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        out = super().on_leave(original, updated)
        if self._inert and self._inert[-1] == id(original):
            self._inert.pop()
        return out  # type: ignore[return-value]

    @property
    def inert(self) -> bool:
        return bool(self._inert)

    def _is_inert(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Annotation):
            return True
        if isinstance(node, cst.If) and _name(node.test) == "TYPE_CHECKING":
            return True
        if isinstance(node, cst.FunctionDef):
            return any(_name(d.decorator) == "overload" for d in node.decorators)
        if isinstance(node, cst.ClassDef):
            return any(_name(b.value) in TYPE_ONLY_BASES for b in node.bases)
        if id(node) in self._messages:
            return True
        return isinstance(node, cst.Call) and is_message_call(node)

    def only_says(self, line: cst.BaseStatement) -> bool:
        """A line of warnings, log calls and values only messages read."""
        return isinstance(line, cst.SimpleStatementLine) and all(
            (isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) and is_message_call(s.value))
            or (isinstance(s, cst.Assign) and id(s.value) in self._messages)
            for s in line.body
        )

    def visit_Assert(self, node: cst.Assert) -> None:
        if node.msg is not None:
            self._messages.add(id(node.msg))

    def visit_Raise(self, node: cst.Raise) -> None:
        # The message of what is raised (its type, and raising at all, still matter).
        if isinstance(node.exc, cst.Call):
            self._messages.update(id(arg) for arg in node.exc.args)

    # where we are
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node.name.value)
        self._bodies.add(id(node.body))
        self._messages.update(id(value) for value in message_values(node))
        self.attribute_names.update(attribute_names(node))

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.BaseStatement:
        self._functions.pop()
        return updated

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._depth += id(node) in self._bodies
        body = list(node.body)
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.If) and boundary_equal(stmt, body[i + 1 :]):
                self.proofs[id(stmt.test)] = "boundary: both paths return the same value there"

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._depth += id(node) in self._bodies

    def _leave_body(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        self._depth -= id(original) in self._bodies
        return updated

    leave_IndentedBlock = _leave_body  # type: ignore[assignment]
    leave_SimpleStatementSuite = _leave_body  # type: ignore[assignment]

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        # A bare string statement is a docstring or a comment: no program reads it.
        for small in node.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
                self._fixed_strings.add(id(small.value))

    def visit_If(self, node: cst.If) -> None:
        if isinstance(node.orelse, cst.If):
            self._elifs.add(id(node.orelse))
        self._tests.add(id(node.test))

    def visit_While(self, node: cst.While) -> None:
        self._tests.add(id(node.test))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._tests.add(id(node.test))
        sides = _sides(node.test)
        if sides and {code(node.body).strip(), code(node.orelse).strip()} <= sides:
            self.proofs[id(node.test)] = "boundary: both branches give the same value there"

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.emptiness_zeros |= python_emptiness_zeros(node)
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and isinstance(
                target.comparator, cst.SimpleString
            ):
                self.proofs[id(target.comparator)] = (
                    "membership string: `XX` around it changes only input holding an `X`"
                )

    def visit_Call(self, node: cst.Call) -> None:
        for n, arg in enumerate(node.args):
            if not arg.star and isinstance(arg.value, cst.SimpleString):
                keyword = arg.keyword.value if arg.keyword else ""
                dotted = "." if isinstance(node.func, cst.Attribute) else ""
                self.arguments[id(arg.value)] = (dotted + _name(node.func), n, keyword)
        if _name(node.func) in SYMMETRIC:
            self.proofs[id(node)] = f"`{_name(node.func)}()` is symmetric in its arguments"

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        # Its parts cannot be parenthesised one by one (the schema's switch would).
        for part in (node.left, node.right):
            self._fixed_strings.add(id(part))

    def line(self, node: cst.CSTNode) -> int:
        return int(self.get_metadata(PositionProvider, node).start.line)

    def span(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """(start line, start column, end line, end column) of `node` in the source."""
        r = self.get_metadata(PositionProvider, node)
        return r.start.line, r.start.column, r.end.line, r.end.column


def is_guard(node: cst.BaseStatement) -> bool:
    """An `if` without `else` that leaves early (`return`, `raise`, `continue`, `break`): its
    removal runs what it guarded against, a change of behaviour rather than a crash."""
    if not isinstance(node, cst.If) or node.orelse is not None:
        return False
    last = node.body.body[-1] if node.body.body else None
    leaves = (cst.Return, cst.Raise, cst.Continue, cst.Break)
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], leaves)

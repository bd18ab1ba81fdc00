"""Operators on calls, parameters and bounds: arguments swapped or removed, a keyword argument
dropped, a method call removed, a parameter's default flipped, and a bound moved by one.

Why these: each is a wrong fix a fix's tests often accept and the selective set misses.
sympy-20154's fix adds `.copy()` to what `partitions()` yields (the wrong fix without it passes
the tests, yet no operator could write it: `no_mutants`); a keyword the fix passes on the same
line as its call (`keep_attrs=True`) is as much the fix as one on its own line; a default
decides what every caller that omits it gets; `range(n)` and `x[:n]` hold off-by-one bounds no
comparison operator reaches. A message is never mutated (what is raised, warned or logged:
spice_engine.strength.mutant_context), nor the argument that carries it removed.
"""

from __future__ import annotations

import libcst as cst

from spice_engine.strength.mutant_context import code
from spice_engine.strength.mutator_base import MutatorBase
from spice_engine.strength.sites import code_of, paren

LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)
"""Defaults and bounds the constant and string operators mutate already."""
FLAGS = ("True", "False")
SENSIBLE = {"bool": "True", "int": "0", "float": "0.0", "str": '""', "list": "[]", "dict": "{}"}
"""A `None` default's other value, by the parameter's annotation (`True` without one: the
value a `keep_attrs=None` whose None means "ask the global option" is likeliest to differ on)."""
SELVES = ("self", "cls")
ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)
"""Expressions `+ 1` can follow without parentheses."""


def _with_one(bound: cst.BaseExpression, more: bool) -> cst.BaseExpression:
    left = bound if isinstance(bound, ATOMS) else paren(bound)
    op: cst.BaseBinaryOp = cst.Add() if more else cst.Subtract()
    return cst.BinaryOperation(left=left, operator=op, right=cst.Integer("1"))


def _bound_mutants(bound: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression, str]]:
    was = code_of(bound, 30)
    return [
        ("bound", _with_one(bound, more), f"`{was}` → `{was} {'+' if more else '-'} 1`")
        for more in (True, False)
    ]


class CallOperators(MutatorBase):
    """The operators of the module docstring, on top of the shared plumbing."""

    def __init__(
        self,
        source: str,
        lines: set[int],
        chosen: set[int] | None = None,
        schema: bool = False,
        offset: int = 0,
    ) -> None:
        super().__init__(source, lines, chosen, schema, offset)
        self._statements: set[int] = set()
        """Calls that are a whole statement (`x.reset()`): removing the statement says it."""

    def visit_Expr(self, node: cst.Expr) -> None:
        self._statements.add(id(node.value))

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        out = self._swapped(original, updated)
        out = self._removed_arguments(original, updated, out)
        out = self._method_removed(original, updated, out)
        out = self._range_bound(original, updated, out)
        return self._negated(original, out)

    def _swapped(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = list(updated.args)
        plain = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
        if plain[:2] != [0, 1] or code_of(args[0].value) == code_of(args[1].value):
            return updated
        first, second = args[0], args[1]
        swapped = [
            second.with_changes(comma=first.comma),
            first.with_changes(comma=second.comma),
            *args[2:],
        ]
        change = f"arguments of `{code_of(updated.func, 30)}()` swapped"
        mutant = updated.with_changes(args=swapped)
        proof = self.proofs.get(id(original), "")
        return self._expr(
            original, updated, [("arguments swapped", mutant, change)], proofs=[proof]
        )

    def _removed_arguments(
        self, original: cst.Call, updated: cst.Call, out: cst.BaseExpression
    ) -> cst.BaseExpression:
        """An argument the fix adds on a line of its own (the call itself may be older), and
        any keyword argument: each left out (never a message's)."""
        args, name = list(updated.args), code_of(updated.func, 30)
        for i, arg in enumerate(original.args):
            own_line = self.line(arg) != self.line(original)
            if arg.star or id(arg) in self._messages or id(arg.value) in self._messages:
                continue
            if not own_line and arg.keyword is None:
                continue
            rest = updated.with_changes(args=[a for j, a in enumerate(args) if j != i])
            change = f"`{code_of(arg, 30).rstrip(',')}` removed from `{name}()`"
            operator = "argument removed" if own_line else "keyword removed"
            out = self._expr(arg, out, [(operator, rest, change)], edit="")
        return out

    def _method_removed(
        self, original: cst.Call, updated: cst.Call, out: cst.BaseExpression
    ) -> cst.BaseExpression:
        """`x.copy()` → `x`, `a.b(y).c(z)` → `a.b(y)`: a method call without arguments, or
        chained on another call, left out (its receiver stays)."""
        func = updated.func
        if not isinstance(func, cst.Attribute) or id(original) in self._statements:
            return out
        chained = isinstance(func.value, (cst.Call, cst.Subscript))
        if updated.args and not chained:
            return out
        receiver = func.value
        if code_of(receiver) in SELVES or (
            isinstance(receiver, cst.Call) and code_of(receiver.func) == "super"
        ):
            return out  # `self.size()`, `super().save()`: the method is the point, not a step
        change = f"`.{func.attr.value}()` removed from `{code_of(original, 30)}`"
        return self._expr(original, out, [("method call removed", receiver, change)], at=original)

    def _range_bound(
        self, original: cst.Call, updated: cst.Call, out: cst.BaseExpression
    ) -> cst.BaseExpression:
        """`range(n)` → `range(n ± 1)` (the stop of `range(a, n)` too), for a stop that is
        not a literal (a literal's ±1 is the constant operator's)."""
        if code_of(updated.func) != "range" or not 1 <= len(updated.args) <= 3:
            return out
        at = 0 if len(updated.args) == 1 else 1
        arg = original.args[at]
        if arg.keyword is not None or arg.star or isinstance(arg.value, LITERALS):
            return out
        for operator, bound, change in _bound_mutants(updated.args[at].value):
            args = list(updated.args)
            args[at] = args[at].with_changes(value=bound)
            mutant = updated.with_changes(args=args)
            # The text edit is the bound's alone; the rewrite, the whole call's.
            out = self._expr(arg.value, out, [(operator, mutant, change)], edit=code(bound))
        return out

    def leave_Slice(self, original: cst.Slice, updated: cst.Slice) -> cst.Slice:
        """`x[:n]` → `x[:n ± 1]`, for an upper bound that is not a literal."""
        upper = updated.upper
        if upper is None or original.upper is None or isinstance(upper, LITERALS):
            return updated
        if isinstance(upper, cst.UnaryOperation) and isinstance(upper.expression, LITERALS):
            return updated  # `-1`: the constant operator's
        new = self._expr(original.upper, upper, _bound_mutants(upper))
        return updated.with_changes(upper=new)

    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        """A parameter's default flipped: `None` to a value of its annotation's type, any
        other (not a literal or a flag, which other operators flip) to `None`."""
        default = updated.default
        if default is None or original.default is None or isinstance(default, LITERALS):
            return updated
        if isinstance(default, cst.Name) and default.value in FLAGS:
            return updated
        if isinstance(default, cst.Name) and default.value == "None":
            kind = code(original.annotation.annotation) if original.annotation else ""
            head = kind.removeprefix("Optional[").split("|")[0].split("[")[0].strip().lower()
            mutant: cst.BaseExpression = cst.parse_expression(SENSIBLE.get(head, "True"))
        else:
            mutant = cst.Name("None")
        change = f"default `{code_of(default, 30)}` → `{code_of(mutant)}`"
        new = self._expr(original.default, default, [("default flipped", mutant, change)])
        return updated.with_changes(default=new)

"""Mutants of the lines a fix adds or changes, as plain sources and as one switchable schema.

Operators: the selective set of Offutt et al. (relational and logical operators replaced,
conditions negated, constants ±1, booleans flipped, strings `"XX…XX"` as mutmut does (and a raw
string's or a raw f-string's pattern with an alternative left out), statements
and early-leaving guards removed, returns replaced by None, `+`/`-`), and those on calls,
parameters and bounds (spice_engine.strength.call_mutants: the first two positional arguments
swapped, an argument on a line of its own or a keyword argument removed, a method call removed,
a default flipped, a `range` or slice bound moved by one). Only nodes that start on a changed
line are mutated. The schema (spice_engine.strength.sources) guards each chosen mutant
by `_spice_mutant(k)` (true while `SPICE_MUTANT` is `k`): a session switches mutants between test
runs; one in code run at import runs as plain source in a process of its own.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper

from spice_engine.strength.call_mutants import CallOperators
from spice_engine.strength.mutant_context import ORDERING
from spice_engine.strength.regex_alternatives import dropped_alternatives
from spice_engine.strength.sites import FLIP_ARITHMETIC, FLIP_COMPARISON, Site, code_of

REGEX = "regex alternative"
"""A pattern's alternative left out (spice_engine.strength.regex_alternatives)."""


class _Mutator(CallOperators):
    """Every operator of the module docstring (calls' in spice_engine.strength.call_mutants)."""

    # the operators
    def leave_Comparison(
        self, original: cst.Comparison, updated: cst.Comparison
    ) -> cst.BaseExpression:
        mutants, proofs = [], []
        boundary = self.proofs.get(id(original), "")
        for i, target in enumerate(updated.comparisons):
            flip = FLIP_COMPARISON.get(type(target.operator))
            if flip is None:
                continue
            new = flip()
            targets = list(updated.comparisons)
            targets[i] = target.with_changes(operator=new)
            was, now = (
                code_of(cst.Comparison(cst.Name("a"), [target])),
                code_of(cst.Comparison(cst.Name("a"), [targets[i]])),
            )
            change = f"`{was[2:]}` → `{now[2:]}`"
            mutants.append(("comparison", updated.with_changes(comparisons=targets), change))
            ordering = isinstance(new, ORDERING) and isinstance(target.operator, ORDERING)
            proofs.append(boundary if ordering else "")
        out = self._expr(original, updated, mutants, proofs=proofs)
        return self._negated(original, out)

    def leave_BooleanOperation(
        self, original: cst.BooleanOperation, updated: cst.BooleanOperation
    ) -> cst.BaseExpression:
        flip: cst.BaseBooleanOp = cst.Or() if isinstance(updated.operator, cst.And) else cst.And()
        was, now = ("and", "or") if isinstance(updated.operator, cst.And) else ("or", "and")
        mutant = updated.with_changes(operator=flip)
        out = self._expr(original, updated, [("boolean operator", mutant, f"`{was}` → `{now}`")])
        return self._negated(original, out)

    def leave_BinaryOperation(
        self, original: cst.BinaryOperation, updated: cst.BinaryOperation
    ) -> cst.BaseExpression:
        flip = FLIP_ARITHMETIC.get(type(updated.operator))
        if flip is None:
            return updated
        was, now = ("+", "-") if flip is cst.Subtract else ("-", "+")
        mutant = updated.with_changes(operator=flip())
        return self._expr(original, updated, [("arithmetic", mutant, f"`{was}` → `{now}`")])

    def leave_Integer(self, original: cst.Integer, updated: cst.Integer) -> cst.BaseExpression:
        try:
            value = int(original.value.replace("_", ""), 0)
        except ValueError:
            return updated
        mutants = []
        # An emptiness test's 0 is not moved up (spice_engine.strength.emptiness).
        up = () if id(original) in self.emptiness_zeros else (value + 1,)
        for new in (*up, value - 1):
            node: cst.BaseExpression = cst.Integer(str(abs(new)))
            if new < 0:
                node = cst.UnaryOperation(cst.Minus(), node)
            mutants.append(("constant", node, f"`{original.value}` → `{new}`"))
        return self._expr(original, updated, mutants)

    def leave_SimpleString(
        self, original: cst.SimpleString, updated: cst.SimpleString
    ) -> cst.BaseExpression:
        if id(original) in self._fixed_strings:
            return updated
        prefix, quote = updated.prefix, updated.quote
        body = updated.value[len(prefix) + len(quote) : -len(quote)]
        mutant = cst.SimpleString(f"{prefix}{quote}XX{body}XX{quote}")
        change = f"`{code_of(original, 30)}` → `{code_of(mutant, 34)}`"
        proof = self.proofs.get(id(original), "")
        mutants: list[tuple[str, cst.BaseExpression, str]] = [("string", mutant, change)]
        if "r" in prefix.lower():  # a raw string: where a pattern is written
            for drop in dropped_alternatives(body):
                pattern = cst.SimpleString(f"{prefix}{quote}{drop.text}{quote}")
                mutants.append((REGEX, pattern, f"`{drop.was}` → `{drop.now}`"))
        return self._expr(original, updated, mutants, proofs=[proof])

    def leave_FormattedString(
        self, original: cst.FormattedString, updated: cst.FormattedString
    ) -> cst.BaseExpression:
        if "r" not in updated.prefix.lower():
            return updated
        mutants: list[tuple[str, cst.BaseExpression, str]] = []
        for n, part in enumerate(updated.parts):
            if not isinstance(part, cst.FormattedStringText):
                continue
            for drop in dropped_alternatives(part.value):
                parts = list(updated.parts)
                parts[n] = part.with_changes(value=drop.text)
                mutant = updated.with_changes(parts=parts)
                mutants.append((REGEX, mutant, f"`{drop.was}` → `{drop.now}`"))
        return self._expr(original, updated, mutants) if mutants else updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if updated.value not in ("True", "False"):
            return self._negated(original, updated)
        other = "False" if updated.value == "True" else "True"
        change = f"`{updated.value}` → `{other}`"
        out = self._expr(original, updated, [("constant", cst.Name(other), change)])
        return self._negated(original, out)

    def leave_UnaryOperation(
        self, original: cst.UnaryOperation, updated: cst.UnaryOperation
    ) -> cst.BaseExpression:
        return self._negated(original, updated)

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        return self._negated(original, updated)

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        value = updated.value
        if value is None or (isinstance(value, cst.Name) and value.value == "None"):
            return updated
        mutant = cst.Name("None")
        change = f"`return {code_of(original.value, 30) if original.value else ''}` → `return None`"
        new = self._expr(original, value, [("return replaced", mutant, change)], at=original.value)
        return updated.with_changes(value=new)

    # Statements are removed whole: a line of simple ones, an `if`, a loop, a `with`, a `try`.
    leave_SimpleStatementLine = CallOperators._stmt  # type: ignore[assignment]
    leave_If = leave_For = leave_While = leave_With = leave_Try = CallOperators._stmt  # type: ignore[assignment]


def run_mutator(
    source: str, lines: set[int], chosen: set[int] | None, schema: bool, offset: int = 0
) -> tuple[str, list[Site]]:
    module = cst.parse_module(source)
    mutator = _Mutator(source, lines, chosen, schema, offset)
    out = MetadataWrapper(module).visit(mutator)
    return out.code, mutator.sites


def find_sites(source: str, lines: set[int]) -> list[Site]:
    """Every mutant of the changed `lines` (1-based) of `source`; libcst's ParserSyntaxError
    when the file does not parse."""
    return run_mutator(source, lines, None, False)[1]


def plain(source: str, lines: set[int], k: int) -> str:
    """`source` with mutant `k` alone, as a fix would be written."""
    return run_mutator(source, lines, {k}, False)[0]

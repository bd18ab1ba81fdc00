"""Mutants of the lines a fix adds or changes, as plain sources and as one switchable schema.

Operators: the selective set of Offutt et al. (relational and logical operators replaced,
conditions negated, constants ±1, booleans flipped, strings `"XX…XX"` as mutmut does, statements
and early-leaving guards removed, returns replaced by None, `+`/`-`, the first two positional
arguments swapped, an argument on a line of its own removed). Only nodes that start on a
changed line are mutated. The schema (spice_engine.strength.sources) guards each chosen mutant
by `_spice_mutant(k)` (true while `SPICE_MUTANT` is `k`): a session switches mutants between test
runs; one in code run at import runs as plain source in a process of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper

from spice_engine.strength.mutant_context import (
    ORDERING,
    Context,
    bare,
    code,
    is_guard,
)
from spice_engine.strength.sites import (
    FLIP_ARITHMETIC,
    FLIP_COMPARISON,
    Site,
    code_of,
    guard,
    paren,
)


class _Mutator(Context):
    """Numbers every mutation site in traversal order; in `chosen` mode rewrites those only
    (plainly when `schema` is False: then `chosen` holds one id)."""

    def __init__(
        self,
        source: str,
        lines: set[int],
        chosen: set[int] | None = None,
        schema: bool = False,
        offset: int = 0,
    ):
        super().__init__()
        self.lines, self.chosen, self.schema, self.offset = lines, chosen, schema, offset
        self.source_lines = source.splitlines(keepends=True)
        self.sites: list[Site] = []

    def _new(
        self,
        original: cst.CSTNode,
        operator: str,
        change: str,
        proof: str = "",
        edit: tuple[cst.CSTNode, cst.CSTNode | str] | None = None,
    ) -> int | None:
        """A site's id if `original` starts on a changed line in code that can matter (None:
        not a site). `edit`: the node the mutant replaces and what replaces it."""
        if self.inert:
            return None
        line = self.line(original)
        if line not in self.lines:
            return None
        k = len(self.sites)
        fn = self._functions[-1] if self._functions else None
        splice = self._splice(*edit) if edit is not None and self.chosen is None else None
        passed = self.arguments.get(id(original))
        named = self.attribute_names.get(id(original), "")
        self.sites.append(
            Site(k, line, operator, change, fn, self._depth > 0, proof, splice, passed, named)
        )
        return k

    def _text(self, span: tuple[int, int, int, int]) -> str:
        l1, c1, l2, c2 = span
        if l1 == l2:
            return self.source_lines[l1 - 1][c1:c2]
        inner = "".join(self.source_lines[l1 : l2 - 1])
        return self.source_lines[l1 - 1][c1:] + inner + self.source_lines[l2 - 1][:c2]

    def _splice(
        self, at: cst.CSTNode, mutant: cst.CSTNode | str
    ) -> tuple[int, int, int, int, str] | None:
        """The mutant as a text edit, when the node's text in the source is what libcst
        writes for it (else the whole rewrite is the only safe way)."""
        span = self.span(at)
        if isinstance(mutant, str):
            if mutant == "":  # an argument removed: its comma goes with it
                l2, c2 = span[2], span[3]
                rest = self.source_lines[l2 - 1][c2:]
                if rest.lstrip(" ").startswith(","):
                    span = (span[0], span[1], l2, c2 + len(rest) - len(rest.lstrip(" ")) + 1)
            return (*span, mutant)
        same_kind = type(mutant) is type(at)
        if code(bare(at)) != self._text(span):
            return None
        return (*span, code(bare(mutant) if same_kind else mutant))

    def _expr(
        self,
        original: cst.CSTNode,
        updated: cst.BaseExpression,
        mutants: Sequence[tuple[str, cst.BaseExpression, str]],
        at: cst.CSTNode | None = None,
        proofs: Sequence[str] = (),
        edit: str | None = None,
    ) -> cst.BaseExpression:
        """`at`: the original of the node the mutants replace (default `original`); `edit`:
        the text that replaces `original` instead (an argument removed: "")."""
        out = updated
        for n, (operator, mutant, change) in enumerate(mutants):
            proof = proofs[n] if n < len(proofs) else ""
            new: cst.CSTNode | str = mutant if edit is None else edit
            pair = (at or original, new)
            k = self._new(original, operator, change, proof, pair)
            if k is None or self.chosen is None or k not in self.chosen:
                continue
            if not self.schema:
                return mutant
            out = paren(
                cst.IfExp(test=guard(k + self.offset), body=paren(mutant), orelse=paren(out))
            )
        return out

    def _stmt(self, original: cst.BaseStatement, updated: cst.BaseStatement) -> cst.BaseStatement:
        if self._depth == 0 or id(original) in self._elifs:
            return updated
        if isinstance(original, cst.SimpleStatementLine) and all(
            # a removed `return` is `return None` (another operator's mutant) in effect
            isinstance(s, (cst.Pass, cst.Global, cst.Nonlocal, cst.Return))
            or (isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.Yield)))
            for s in original.body
        ):
            return updated
        if self.only_says(original):
            return updated  # a warning or a log line: what it says, not what the fix does
        removed = "guard removed" if is_guard(original) else "statement removed"
        k = self._new(original, removed, code_of(original), "", (original, "pass"))
        if k is None or self.chosen is None or k not in self.chosen:
            return updated
        passing = cst.SimpleStatementLine([cst.Pass()])
        if not self.schema:
            return passing
        return cst.If(
            test=guard(k + self.offset),
            body=cst.IndentedBlock([passing]),
            orelse=cst.Else(cst.IndentedBlock([updated])),
        )

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
            mutants.append(("comparison", updated.with_changes(comparisons=targets),
                            f"`{was[2:]}` → `{now[2:]}`"))  # fmt: skip
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
        for new in (value + 1, value - 1):
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
        return self._expr(original, updated, [("string", mutant, change)], proofs=[proof])

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if updated.value not in ("True", "False"):
            return self._negated(original, updated)
        other = "False" if updated.value == "True" else "True"
        change = f"`{updated.value}` → `{other}`"
        out = self._expr(original, updated, [("constant", cst.Name(other), change)])
        return self._negated(original, out)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        args = list(updated.args)
        name = code_of(updated.func, 30)
        out: cst.BaseExpression = updated
        plain = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
        if plain[:2] == [0, 1] and code_of(args[0].value) != code_of(args[1].value):
            swapped = [args[1].with_changes(comma=args[0].comma), args[0].with_changes(comma=args[1].comma), *args[2:]]  # fmt: skip
            change = f"arguments of `{name}()` swapped"
            proof = self.proofs.get(id(original), "")
            out = self._expr(original, out, [("arguments swapped", updated.with_changes(args=swapped), change)], proofs=[proof])  # fmt: skip
        # An argument the fix adds to a call (its own line: the call itself may be older).
        for i, arg in enumerate(original.args):
            if self.line(arg) == self.line(original) or arg.star:
                continue
            rest = updated.with_changes(args=[a for j, a in enumerate(args) if j != i])
            change = f"`{code_of(arg, 30).rstrip(',')}` removed from `{name}()`"
            out = self._expr(arg, out, [("argument removed", rest, change)], edit="")
        return self._negated(original, out)

    def _negated(
        self, original: cst.BaseExpression, updated: cst.BaseExpression
    ) -> cst.BaseExpression:
        """Conditions (of `if`, `while`, `x if c else y`) negated."""
        if id(original) not in self._tests:
            return updated
        if isinstance(original, cst.UnaryOperation) and isinstance(original.operator, cst.Not):
            mutant: cst.BaseExpression = original.expression
        else:
            mutant = cst.UnaryOperation(cst.Not(), paren(original))
        return self._expr(original, updated, [("negated condition", mutant, f"`{code_of(original, 30)}` negated")])  # fmt: skip

    def leave_UnaryOperation(self, original: cst.UnaryOperation, updated: cst.UnaryOperation) -> cst.BaseExpression:  # fmt: skip
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
        return updated.with_changes(value=self._expr(original, value, [("return replaced", mutant, change)], at=original.value))  # fmt: skip

    # Statements are removed whole: a line of simple ones, an `if`, a loop, a `with`, a `try`.
    leave_SimpleStatementLine = leave_If = leave_For = leave_While = leave_With = leave_Try = _stmt  # type: ignore[assignment]


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

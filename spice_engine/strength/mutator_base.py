"""The plumbing every mutation operator shares: numbering sites, keeping to changed lines and
code that can matter, writing a mutant as a text edit, and the schema's switch around it."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from spice_engine.strength.mutant_context import Context, bare, code, is_guard
from spice_engine.strength.sites import Site, code_of, guard, paren


class MutatorBase(Context):
    """Numbers every mutation site in traversal order; in `chosen` mode rewrites those only
    (plainly when `schema` is False: then `chosen` holds one id). The operators are its
    subclasses' `leave_*` methods (spice_engine.strength.mutants, call_mutants)."""

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
        change = f"`{code_of(original, 30)}` negated"
        return self._expr(original, updated, [("negated condition", mutant, change)])

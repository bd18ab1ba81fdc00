"""Mutants of a fix's changed lines in any language tree-sitter has a grammar for.

Why tree-sitter's grammars and not each ecosystem's own tool (cargo-mutants `--in-diff`,
Gremlins `--diff`, Stryker's line ranges, PIT): one operator set and one way of choosing for
every language; the changed lines come from the diff we already hold; nothing more is installed
into the sandbox's environments (each of those tools is another download, another version to
match the project's toolchain, and runs its own test selection, whose verdicts we could not
judge by the instance's FAIL_TO_PASS ids). The tests run through the same session as every
other run. The price: one test run per mutant (no mutant schema), which the budget bounds.

Operators are the selective set (Offutt et al.): relational and equality operators (a bound
widened or narrowed: `<` ↔ `<=`), logical connectors, `+`/`-` and `*`/`/`, a negation dropped,
booleans flipped, integer constants + 1; and a method call without arguments removed
(`x.clone()` → `x`, as in Python: spice_engine.strength.call_mutants).
Nothing inside a message's text is mutated (spice_engine.strength.syntax_messages).
A mutant that parses worse than the fix is not one (it would be "killed" by the compiler alone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from spice_engine.langs import languages
from spice_engine.strength.array_lengths import longer_array
from spice_engine.strength.beside_errors import beside_error
from spice_engine.strength.call_receivers import receiver_of
from spice_engine.strength.emptiness import emptiness_zero
from spice_engine.strength.function_names import enclosing_function
from spice_engine.strength.inline_test_items import inline_test
from spice_engine.strength.new_tokens import Span, touches
from spice_engine.strength.syntax_bounds import same_at_bound
from spice_engine.strength.syntax_messages import (
    inner,
    logs_only,
    only_says,
    releases_only,
    says_only,
)
from spice_engine.strength.syntax_truth import only_true
from spice_engine.strength.truth_positions import UNTYPED, tested

_SWAPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "===": "!==",
    "!==": "===",
    "&&": "||",
    "||": "&&",
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
}
_BOOLEANS = {"true": "false", "false": "true"}
_INTEGERS = {
    "int_literal",
    "integer_literal",
    "decimal_integer_literal",
    "number",
    "number_literal",
}
REMOVED = "method call removed"
STATEMENT = "statement removed"
_STATEMENTS = {
    "expression_statement",  # every grammar's call or assignment as a statement
    "assignment_statement",  # Go's `x = f()`, `x += 1`
    "inc_statement",
    "dec_statement",
}
_DOING = {
    "call_expression",
    "method_invocation",
    "macro_invocation",
    "assignment_expression",
    "compound_assignment_expr",
    "augmented_assignment_expression",
    "update_expression",
}
"""What an expression statement removed may hold: a call, an assignment, `i++`; not a bare
value or a block-like expression (a Rust `if` or `match` standing as a statement)."""


@dataclass(frozen=True)
class SyntaxSite:
    line: int
    operator: str
    change: str
    function: str | None
    start: int
    end: int
    replacement: bytes


def grammar_for(language: str, path: str) -> str | None:
    """The tree-sitter grammar `path` is parsed with: the language file's (spice_engine.langs)."""
    return languages()[language].grammar(path)


def _parser(grammar: str) -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar)  # type: ignore[arg-type]


def _negated(node: Any) -> bool:
    """Whether `node` is the operand of a unary minus (`-1`)."""
    parent = node.parent
    return getattr(parent, "type", "") == "unary_expression" and parent.text.startswith(b"-")


def _field(node: Any) -> bool:
    """Whether `node` names a tuple's field (Rust's `self.0`): a `.1` is another field, no
    constant moved by one (ripgrep-2295's `self.0.dir`: a mutant that only fails to build)."""
    parent = node.parent
    field = parent.child_by_field_name("field") if parent is not None else None
    return field is not None and field.id == node.id


def _removed(node: Any) -> tuple[str, int, int, bytes, str] | None:
    """A statement of the fix's removed (the wrong fix that forgets a step: `sort.Strings(x)`,
    `r = r.WithContext(ctx)`), as Python's `statement removed`; never one that only logs or
    panics, nor one that only frees (a leak no test of behaviour sees). Its lines stay, blank, so
    every later line keeps its number."""
    if node.type not in _STATEMENTS or says_only(node) or releases_only(node):
        return None
    if node.type == "expression_statement" and getattr(inner(node), "type", None) not in _DOING:
        return None
    text = node.text.decode("utf-8", "replace")
    first = text.split("\n", 1)[0].strip()
    shown = first[:40] + ("…" if len(first) > 40 or "\n" in text else "")
    blank = b"\n" * text.count("\n")
    return STATEMENT, node.start_byte, node.end_byte, blank, f"`{shown}` removed"


def _done(statement: Any) -> tuple[int, int]:
    """The bytes of what a statement does: an assignment's value (`_ = logx.Close()`, where the
    fix wrote only `_ =`, is the old call kept: removing it forgets no step of the fix), else
    the whole statement."""
    held = inner(statement) if statement.type == "expression_statement" else statement
    value = (held or statement).child_by_field_name("right") or statement
    return value.start_byte, value.end_byte


def _site(
    node: Any, copying: frozenset[str], typed: bool = False
) -> tuple[str, int, int, bytes, str] | None:
    """(operator, start, end, replacement, change) for a node that is a mutation site; `typed`:
    a language whose conditions take only truth values."""
    if (removed := _removed(node)) is not None:
        return removed
    text = node.text.decode("utf-8", "replace")
    if (receiver := receiver_of(node, copying)) is not None:
        if typed and tested(node):
            # `x.requiresPaddingOnRead()` → `x` never builds where a condition must be a truth
            # value (jackson-core-922: twelve such mutants, none built): the check inverted is
            # the wrong fix to try there.
            change = f"`{text[:30]}` → `!{text[:30]}`"
            return "negated condition", node.start_byte, node.end_byte, b"!" + node.text, change
        kept = receiver.text
        change = f"`{text[:30]}` → `{kept.decode('utf-8', 'replace')[:30]}`"
        return REMOVED, node.start_byte, node.end_byte, kept, change
    if node.type in ("binary_expression", "binary_operator"):
        op = node.child_by_field_name("operator")
        if op is not None and (swap := _SWAPS.get(op.text.decode())) is not None:
            right = node.child_by_field_name("right")
            tail = right.text.decode("utf-8", "replace")[:30] if right is not None else ""
            change = f"`{op.text.decode()} {tail}` → `{swap} {tail}`"
            if same_at_bound(node):  # both paths agree at equality (syntax_bounds)
                return None
            kind = "arithmetic" if swap in "+-*/" else "relational"
            if swap in ("&&", "||"):
                kind = "logical"
            return kind, op.start_byte, op.end_byte, swap.encode(), change
    if node.type == "unary_expression" and text.startswith("!"):
        inner = text[1:]
        return (
            "negation",
            node.start_byte,
            node.end_byte,
            inner.encode(),
            f"`{text[:30]}` → `{inner[:30]}`",
        )
    leaf_boolean = node.child_count == 0 and getattr(node.parent, "type", "") != "boolean_literal"
    if (text in _BOOLEANS and leaf_boolean) or node.type == "boolean_literal":
        flip = _BOOLEANS.get(text)
        if flip:
            return "boolean", node.start_byte, node.end_byte, flip.encode(), f"`{text}` → `{flip}`"
    if node.type in _INTEGERS and re.fullmatch(r"\d{1,9}", text) and not _field(node):
        if only_true(node):  # 1 → 2 is as true (spice_engine.strength.syntax_truth)
            return None
        if emptiness_zero(node):  # len(x) > 0 → > 1 (spice_engine.strength.emptiness)
            return None
        if longer_array(node):  # spice_engine.strength.array_lengths
            return None
        more = str(int(text) + 1)
        # `-1` is a negation of `1`: said with its sign, it is told from a `1` beside it.
        sign = "-" if _negated(node) else ""
        change = f"`{sign}{text}` → `{sign}{more}`"
        return "constant", node.start_byte, node.end_byte, more.encode(), change
    return None


def find_sites(
    source: str,
    lines: set[int],
    grammar: str,
    written: list[Span] | None = None,
    copying: frozenset[str] = frozenset(),
) -> list[SyntaxSite]:
    """Every mutation site starting on one of `lines` (1-based), in source order; with
    `written` (spice_engine.strength.new_tokens), only those whose change touches a token the
    fix writes, not one it only moves; no call of `copying` removed."""
    data = source.encode("utf-8")
    tree = _parser(grammar).parse(data)
    found: list[SyntaxSite] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.start_point[0] + 1 > max(lines, default=0) or node.end_point[0] + 1 < min(
            lines, default=1
        ):
            continue
        if only_says(node) or logs_only(node):  # a message, or which one (syntax_messages)
            continue
        if beside_error(node):  # what no caller given the error reads (beside_errors)
            continue
        if inline_test(node):  # a test the fix's pull request wrote (inline_test_items)
            continue
        hit = (
            _site(node, copying, grammar not in UNTYPED)
            if node.start_point[0] + 1 in lines
            else None
        )
        if hit is not None:
            kind, start, end, repl, change = hit
            first, last = _done(node) if kind == STATEMENT else (start, end)
            if written is None or touches(written, _at(data, first), _at(data, last)):
                line, fn = node.start_point[0] + 1, enclosing_function(node)
                found.append(SyntaxSite(line, kind, change, fn, start, end, repl))
        stack.extend(reversed(node.children))
    return sorted(found, key=lambda s: (s.start, s.end))


def _at(data: bytes, offset: int) -> tuple[int, int]:
    """(line, column) of a byte offset, the column in characters as new_tokens counts them."""
    before = data[:offset].decode("utf-8", "replace")
    return before.count("\n") + 1, len(before) - before.rfind("\n") - 1


def _errors(tree: Any) -> int:
    """How many error and missing nodes `tree` holds."""
    count, stack = 0, [tree.root_node]
    while stack:
        node = stack.pop()
        if node.has_error:  # only a subtree holding an error is walked
            count += node.is_error or node.is_missing
            stack.extend(node.children)
    return count


def mutant_source(source: str, site: SyntaxSite, grammar: str) -> str | None:
    """The file with `site` mutated; None when the result parses worse than the fix. Not "has
    any error": C and C++ headers rarely parse whole (a macro tree-sitter cannot expand, such as
    jq's `BINOPS` or fmt's `FMT_BEGIN_NAMESPACE`), and then no mutant of theirs would be made."""
    data = source.encode("utf-8")
    mutated = data[: site.start] + site.replacement + data[site.end :]
    parser = _parser(grammar)
    after = parser.parse(mutated)
    if after.root_node.has_error and _errors(after) > _errors(parser.parse(data)):
        return None
    return mutated.decode("utf-8")

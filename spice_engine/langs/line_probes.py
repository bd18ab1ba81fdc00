"""A statement that fails the test running it, placed before the statement holding a line: what
tells, in a language without our test plugins, which tests execute a survivor's line
(spice_engine.strength.line_probe).

The probe goes in front of the innermost statement that holds the line's first token and
sits directly in a body of statements (a block, a case's statements), on the same line, so
every line keeps its number. A statement holding the line is reached at least as often as the
line itself (a condition's second line, an `else if`'s: the statement around them): a probe
never says a line no test reaches is executed by none, only, at worst, that a line is reached
when only its statement is. A line in no body (a package's constant, a field's default) gets
no probe: not known.

Each probe is written so its language accepts what follows it: Go and JavaScript take code
after a `panic`/`throw`; Rust's `if true { panic!() }` is of type `()` (no unreachable-code
lint, which a crate's `deny(warnings)` would make an error); Java's `if (true) throw` is its
one permitted unreachable-looking statement; C and C++'s `__builtin_trap()` ends the process
(a test binary reports its tests failed or missing).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from spice_engine.langs.compiled_code import enclosing


class Probe(NamedTuple):
    statement: str
    """Written before the statement, on its line (ends in a space: no newline)."""
    bodies: frozenset[str]
    """Node kinds whose statements are children, each one a place for a statement."""


MARK = "spice: line probe"
"""The probe's message, where its language prints one."""
_C = Probe("__builtin_trap(); ", frozenset({"compound_statement", "case_statement"}))
_JS = Probe(
    f'throw new Error("{MARK}"); ', frozenset({"statement_block", "switch_case", "switch_default"})
)
PROBES = {
    "go": Probe(f'panic("{MARK}"); ', frozenset({"statement_list"})),
    "rust": Probe(f'if true {{ panic!("{MARK}") }} ', frozenset({"block"})),
    "c": _C,
    "cpp": _C,
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "java": Probe(
        f'if (true) throw new RuntimeException("{MARK}"); ',
        frozenset({"block", "constructor_body", "switch_block_statement_group"}),
    ),
}
_NOT_STATEMENTS = frozenset(
    {"comment", "line_comment", "block_comment", "attribute_item", "label", "switch_label"}
    # A probe before a case or a label is skipped by a jump to it: the statement around them
    # is probed instead.
    | {"case_statement", "labeled_statement"}
)


def probe(grammar: str | None, source: str, line: int) -> str | None:
    """`source` with `grammar`'s probe before the statement holding `line` (1-based); None
    when the line is in no body of statements, or the grammar has no probe."""
    kind = PROBES.get(grammar or "")
    if kind is None:
        return None
    statement = _statement(enclosing(source, line, grammar or ""), kind.bodies)
    if statement is None:
        return None
    raw = source.encode()
    at = statement.start_byte
    return (raw[:at] + kind.statement.encode() + raw[at:]).decode()


def _statement(chain: list[Any], bodies: frozenset[str]) -> Any:
    """The innermost node of `chain` that is a statement of a body (not a case's value)."""
    for node in chain:
        parent = node.parent
        if parent is None or parent.type not in bodies or not node.is_named:
            continue
        if node.type in _NOT_STATEMENTS or _is_field(parent, node, "value"):
            continue
        return node
    return None


def _is_field(parent: Any, node: Any, field: str) -> bool:
    return any(
        (child.start_byte, child.end_byte) == (node.start_byte, node.end_byte)
        for child in parent.children_by_field_name(field)
    )

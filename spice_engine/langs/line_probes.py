"""A statement that fails the test running it, placed before the statement holding a line: what
tells, in a language without our test plugins, which tests execute a survivor's line
(spice_engine.strength.line_probe).

The probe goes in front of the innermost statement that holds the mutated token and sits
directly in a body of statements (a block, a case's statements), or, for a statement standing
alone as a branch (`if (!s) return 0`, an `else if`), inside braces put around it; on the same
line, so every line keeps its number. A statement holding the token is reached at least as
often as the token (a condition's second line: the statement around it): a probe never says
code a test reaches is reached by none, only, at worst, that it is reached when only its
statement is. Code in no body (a package's constant, a field's default) gets no probe: not
known.

Each probe is written so its language accepts what follows it: Go and JavaScript take code
after a `panic`/`throw`; Rust's `if true { … }` is of type `()` (no unreachable-code
lint, which a crate's `deny(warnings)` would make an error); Java's `if (true) throw` is its
one permitted unreachable-looking statement; C and C++'s `__builtin_trap()` ends the process
(a test binary reports its tests failed or missing).

Rust's probe panics only on a thread libtest started (named after its test); anywhere else (a
program's main thread, a thread it started) it aborts the process: a panic there can leave the
program waiting for the thread forever (ripgrep's `rg`, run by its integration tests, held each
probe run to its bound: 14–27 s where a mutant's took 2–6 s), while an aborted program is a
failure the test running it sees at once. `std` is named through a crate of the block's own, so
a `no_std` crate builds it too; where the code runs at compile time (a `const fn`, a constant)
the probe is the plain `panic!`, all such code may call.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple


class Probe(NamedTuple):
    statement: str
    """Written before the statement, on its line (ends in a space: no newline)."""
    bodies: frozenset[str]
    """Node kinds whose statements are children, each one a place for a statement."""
    constant: str | None = None
    """Written instead where the code runs at compile time (`constant_context`)."""


MARK = "spice: line probe"
"""The probe's message, where its language prints one."""


def rust_fails(mark: str) -> str:
    """Rust statements ending the test that runs them (of type `!`): a panic on a thread
    libtest started, an abort of the process anywhere else."""
    return (
        "extern crate std as spice_std; match spice_std::thread::current().name() { "
        f'Some(spice_n) if spice_n != "main" => panic!("{mark}"), '
        "_ => spice_std::process::abort() }"
    )


_CONSTANTS = frozenset({"const_item", "static_item", "const_block", "array_type", "enum_variant"})


def constant_context(node: Any) -> bool:
    """Whether Rust evaluates `node` at compile time: in a constant, a static, a `const` block,
    an array's length, a discriminant, or a `const fn`."""
    while node is not None:
        if node.type in _CONSTANTS:
            return True
        if node.type == "function_item":
            return any(
                c.type == "function_modifiers" and any(m.type == "const" for m in c.children)
                for c in node.children
            )
        if node.parent is not None and _is_field(node.parent, node, "length"):
            return True
        node = node.parent
    return False


_C = Probe("__builtin_trap(); ", frozenset({"compound_statement", "case_statement"}))
_JS = Probe(
    f'throw new Error("{MARK}"); ', frozenset({"statement_block", "switch_case", "switch_default"})
)
PROBES = {
    "go": Probe(f'panic("{MARK}"); ', frozenset({"statement_list"})),
    "rust": Probe(
        f"if true {{ {rust_fails(MARK)} }} ",
        frozenset({"block"}),
        f'if true {{ panic!("{MARK}") }} ',
    ),
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
_DIRECTIVE_BRANCHES = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}
)
_DIRECTIVE_NODES = _DIRECTIVE_BRANCHES | {
    "preproc_call",
    "preproc_def",
    "preproc_function_def",
    "preproc_include",
}
_NOT_STATEMENTS = frozenset(
    {"comment", "line_comment", "block_comment", "attribute_item", "label", "switch_label"}
    # A probe before a case or a label is skipped by a jump to it: the statement around them
    # is probed instead. Nor does one go before a directive (`#ifdef` must begin its line).
    | {"case_statement", "labeled_statement"}
    | _DIRECTIVE_NODES
)


_BRANCHES = frozenset(
    {"if_statement", "if_expression", "while_statement", "for_statement", "for_in_statement"}
    | {"do_statement", "enhanced_for_statement", "else_clause"}
)
"""What may hold a single statement as its branch or body, without braces (`if (x) return 0;`,
`else if`)."""
_SLOTS = ("consequence", "alternative", "body")
_BLOCKS = frozenset({"statement_block", "compound_statement", "block", "else_clause"})


def probe(grammar: str | None, source: str, at: int) -> str | None:
    """`source` with `grammar`'s probe before the statement holding byte `at`; None when that
    is in no body of statements, or the grammar has no probe. A statement standing alone as a
    branch (`if (!s) return 0`, an `else if`) is wrapped with its probe in braces, so the probe
    runs only when the branch does."""
    kind = PROBES.get(grammar or "")
    raw = source.encode()
    if kind is None or not 0 <= at < len(raw):
        return None
    node = parsed(str(grammar), source).root_node.descendant_for_byte_range(at, at)
    statement = kind.statement
    if kind.constant is not None and constant_context(node):
        statement = kind.constant
    while node is not None:
        parent = node.parent
        if parent is not None and node.is_named and node.type not in _NOT_STATEMENTS:
            if (
                parent.type in kind.bodies and not _is_field(parent, node, "value")
            ) or _in_branch_of_directive(parent, node):
                return _spliced(raw, node.start_byte, node.start_byte, statement.encode())
            if _branch(parent, node):
                text = b"{ " + statement.encode() + raw[node.start_byte : node.end_byte] + b" }"
                return _spliced(raw, node.start_byte, node.end_byte, text)
        node = parent
    return None


def _in_branch_of_directive(parent: Any, node: Any) -> bool:
    """Whether `node` is a statement of an `#if`/`#ifdef`/`#else` branch inside a function's
    body: probed there, not before the directive (which must begin its line), so a branch this
    build leaves out keeps its probe out too and reads as run by no test."""
    if parent.type not in _DIRECTIVE_BRANCHES or not node.type.endswith(
        ("statement", "declaration")
    ):
        return False
    while parent is not None and parent.type != "compound_statement":
        parent = parent.parent
    return parent is not None


@lru_cache(maxsize=8)
def parsed(grammar: str, source: str) -> Any:
    """`source`'s syntax tree (every mutant of one fixed file asks where its probe goes, and
    its decision probe what it compares)."""
    from tree_sitter_language_pack import get_parser

    return get_parser(grammar).parse(source.encode())  # type: ignore[arg-type]


def _branch(parent: Any, node: Any) -> bool:
    """Whether `node` is a single statement standing as `parent`'s branch or body."""
    if parent.type not in _BRANCHES or node.type in _BLOCKS:
        return False
    return parent.type == "else_clause" or any(_is_field(parent, node, f) for f in _SLOTS)


def _spliced(raw: bytes, start: int, end: int, text: bytes) -> str:
    return (raw[:start] + text + raw[end:]).decode()


def _is_field(parent: Any, node: Any, field: str) -> bool:
    return any(
        (child.start_byte, child.end_byte) == (node.start_byte, node.end_byte)
        for child in parent.children_by_field_name(field)
    )

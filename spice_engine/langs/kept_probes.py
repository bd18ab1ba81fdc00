"""A probe that fails the test running it exactly when an assignment a mutant leaves out would
have changed what its target holds: the value before it kept, the assignment made, the two
compared (spice_engine.strength.decision_probe). Left out, such an assignment is the fix's run
step for step until it first changes a value (`dir = filepath.Clean(dir)` on a path already
clean): the decision probe's question, asked of a statement.

Only one plain `=` to a name or a chain of fields (`x`, `c.x`, `this.x`) is probed: a target with
a call or an index would be evaluated again. Go compares with `reflect.DeepEqual` (imported on
the package clause's line, the helper after the last line), Java with `Objects.equals` (the
helper before the top-level class's closing brace), C and C++ with `!=` on a copy taken with
`__typeof__` (a struct does not compile: no probe). The statement's own text is kept as it was,
so no line moves.
"""

from __future__ import annotations

from typing import Any

from spice_engine.langs.decision_probes import MARK, DecisionProbe, changed, placed
from spice_engine.langs.line_probes import parsed

_STATEMENT = {
    "go": "assignment_statement",
    "java": "expression_statement",
    "c": "expression_statement",
    "cpp": "expression_statement",
}
_TARGETS = frozenset(
    {"identifier", "field_identifier", "this", "selector_expression", "field_expression"}
    | {"field_access"}
)
_GO_HELPER = (
    "\nfunc spiceProbeKept(old, new interface{{}}) {{\n\tif !spiceProbeReflect.DeepEqual(old, "
    'new) {{\n\t\tpanic("{mark}")\n\t}}\n}}\n'
)
_JAVA_HELPER = (
    "private static void spiceProbeKept(Object o, Object n) {{ if (!java.util.Objects.equals(o,"
    ' n)) throw new AssertionError("{mark}"); }} '
)
_HELPERS = {"go": _GO_HELPER, "java": _JAVA_HELPER}


def probe(grammar: str | None, fixed: str, mutant: str) -> DecisionProbe | None:
    """`fixed` with the one assignment `mutant` leaves out checked for changing its target;
    None when `mutant` leaves out no such assignment, or no helper has a place."""
    if grammar not in _STATEMENT:
        return None
    raw, other = fixed.encode(), mutant.encode()
    span = changed(raw, other)
    if span is None or len(other) >= len(raw):
        return None
    root = parsed(grammar, fixed).root_node
    node = root.descendant_for_byte_range(span[0], span[0])
    while node is not None and not (
        node.type == _STATEMENT[grammar] and raw[: node.start_byte] + raw[node.end_byte :] == other
    ):
        node = node.parent
    target = None if node is None else _target(grammar, node, raw)
    if node is None or target is None:
        return None
    statement = raw[node.start_byte : node.end_byte].decode()
    written = _written(grammar, root, raw, node, (target, statement))
    if written is None:
        return None
    return DecisionProbe(written, " ".join(statement.split()), f"change what `{target}` holds")


def _target(grammar: str, node: Any, raw: bytes) -> str | None:
    """The target of `node`'s one plain `=` (None: another statement, several targets, a
    compound operator, a target with a call or an index)."""
    if grammar == "go":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or len(left.named_children) != 1:
            return None
        if len(right.named_children) != 1 or operator is None or operator.type != "=":
            return None
        aimed = left.named_children[0]
    else:
        inner = node.named_children
        if len(inner) != 1 or inner[0].type != "assignment_expression":
            return None
        operator = inner[0].child_by_field_name("operator")
        if operator is None or operator.type != "=":
            return None
        aimed = inner[0].child_by_field_name("left")
    if aimed is None or not _plain(aimed):
        return None
    return raw[aimed.start_byte : aimed.end_byte].decode()


def _plain(node: Any) -> bool:
    """A name, or fields of one: nothing evaluated again would run anything."""
    if node.type not in _TARGETS:
        return False
    return all(_plain(c) for c in node.named_children)


def _written(grammar: str, root: Any, raw: bytes, node: Any, ts: tuple[str, str]) -> str | None:
    target, statement = ts
    if grammar == "go":
        text = (
            f"{{ spiceProbeOld := interface{{}}({target}); {statement}; "
            f"spiceProbeKept(spiceProbeOld, {target}) }}"
        )
    elif grammar == "java":
        text = (
            f"{{ Object spiceProbeOld = {target}; {statement} "
            f"spiceProbeKept(spiceProbeOld, {target}); }}"
        )
    else:
        text = (
            f"{{ __typeof__({target}) spice_old_ = {target}; {statement} "
            f"if (spice_old_ != {target}) __builtin_trap(); }}"
        )
    if grammar not in _HELPERS:  # C and C++ compare in the statement itself
        return (raw[: node.start_byte] + text.encode() + raw[node.end_byte :]).decode()
    written = placed(grammar, root, raw, node, (text.encode(), _HELPERS[grammar].format(mark=MARK)))
    if written is None or grammar != "go":
        return written
    clause = next((c for c in root.named_children if c.type == "package_clause"), None)
    if clause is None:
        return None
    data, end = written.encode(), clause.end_byte  # before the statement: not moved
    return (data[:end] + b'; import spiceProbeReflect "reflect"' + data[end:]).decode()

"""A probe that fails the test running it exactly when a mutant would decide otherwise than the
fix: the fix's expression and the mutant's both evaluated where the fix's stood, the test failed
where they differ, the fix's value used otherwise (spice_engine.strength.decision_probe).

What is compared is the decision the mutated token takes part in: the highest truth value of
the comparisons and connectives around it (`specs.alt && n <= d && value != 0`, not `value != 0`
alone, whose flip `alt` may leave without effect), or the value around it when it is in no
decision (`unsigned char u[4] = {0}`, `length() - 1`): in C and C++ a statement expression
compares any scalar, Java's and Rust's generic helpers any value they can compare (Go's modules
here predate generics: truth values only).
Until a mutant's expression first differs the mutant's run is the fix's, step for step: a
mutant no test's run makes differ passes every test because none gives the input where it
shows; one that differs and still passes was tried by the tests and masked or not checked.

Each probe keeps every line where it was (a helper the comparison calls goes after the last
line, or, in Java, before the top-level class's closing brace on its line). An expression that
assigns or increments is not evaluated twice: no probe; one that calls is (a getter, mostly: a
call with effects can only make the probe fire, which holds a survivor, never shows one).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from spice_engine.langs.line_probes import constant_context, parsed, rust_fails

MARK = "spice: decision probe"
"""The probe's message, where its language prints one."""
_FAILS = rust_fails(MARK)
"""Rust's failure: a panic on libtest's threads, an abort elsewhere
(spice_engine.langs.line_probes)."""
_HELPER = {
    "go": (
        "spiceProbeSame({f}, {m})",
        '\nfunc spiceProbeSame(f, m bool) bool {{\n\tif f != m {{\n\t\tpanic("{mark}")\n\t}}'
        "\n\treturn f\n}}\n",
    ),
    "rust": (
        "spice_probe_same({f}, {m})",
        "\n#[allow(dead_code)]\nfn spice_probe_same(f: bool, m: bool) -> bool {{\n"
        "    if f != m {{\n        {fails}\n    }}\n    f\n}}\n",
    ),
    "java": (
        "spiceProbeSame({f}, {m})",
        "private static boolean spiceProbeSame(boolean f, boolean m) {{ if (f != m) throw new "
        'AssertionError("{mark}"); return f; }} ',
    ),
}
_VALUE_HELPER = {
    "rust": (
        "spice_probe_value({f}, {m})",
        "\n#[allow(dead_code)]\nfn spice_probe_value<T: PartialEq>(f: T, m: T) -> T {{\n"
        "    if f != m {{\n        {fails}\n    }}\n    f\n}}\n",
    ),
    "java": (
        "spiceProbeValue({f}, {m})",
        "private static <T> T spiceProbeValue(T f, T m) {{ if (!java.util.Objects.equals(f, m)) "
        'throw new AssertionError("{mark}"); return f; }} ',
    ),
}
"""A value in no decision, where a generic helper compares it (Go's modules here predate
generics: truth values only)."""
_CONSTANT_HELPER = {
    "rust": (
        "spice_probe_same({f}, {m})",
        "\n#[allow(dead_code)]\nconst fn spice_probe_same(f: bool, m: bool) -> bool {{\n"
        '    if f != m {{\n        panic!("{mark}")\n    }}\n    f\n}}\n',
    ),
}
"""The truth helper where the code runs at compile time (`constant_context`): a Rust `const fn`
may only panic (a value there gets no probe: comparing one is no `const` operation)."""
_NO_VALUE = ("pattern", "token_tree", "switch_label", "annotation", "element_value")
"""Where a value must be a constant or is no expression (a `match` arm, a macro's tokens, a
`case`, an annotation): no probe."""
_SCALAR = (
    "(__extension__ ({{ __typeof__({flat}) spice_f_ = ({f}); __typeof__({flat}) spice_m_ = ({m}); "
    "if (spice_f_ != spice_m_) __builtin_trap(); spice_f_; }}))"
)
_SCALARS = frozenset({"c", "cpp"})
"""C and C++ (GNU statement expressions, which gcc and clang take): any scalar compared."""
_TRUTH_OPERATORS = frozenset({"<", "<=", ">", ">=", "==", "!=", "===", "!==", "&&", "||", "!"})
_AROUND = frozenset({"binary_expression", "unary_expression", "parenthesized_expression"})
_EFFECTS = frozenset(
    {"assignment_expression", "update_expression", "compound_assignment_expr"}
    | {"augmented_assignment_expression", "inc_statement", "dec_statement", "assignment"}
)


class DecisionProbe(NamedTuple):
    source: str
    """The fixed file, probed."""
    expression: str
    """The fix's expression compared (as a message names it)."""
    differ: str
    """What the change does where a test makes it differ: "decide otherwise" (a truth value),
    "take another value" (a value, in C or C++), "change what `x` holds" (an assignment left
    out)."""


def probe(grammar: str | None, fixed: str, mutant: str) -> DecisionProbe | None:
    """`fixed` with the expression the one change `mutant` makes compared with the mutant's;
    None when that change is in no expression such a probe can compare (a removed statement, a
    value in a language that compares truth values only, an assignment, a directive's line)."""
    if grammar not in _HELPER and grammar not in _SCALARS:
        return None
    raw, other = fixed.encode(), mutant.encode()
    span = changed(raw, other)
    if span is None:
        return None
    start, end, delta = span
    root = parsed(str(grammar), fixed).root_node
    top, truth = _compared(root.descendant_for_byte_range(start, max(start, end - 1)))
    if not truth:  # `x.m()` → `!x.m()`: the truth value is the mutant's
        theirs, truth = _compared(
            parsed(str(grammar), mutant).root_node.descendant_for_byte_range(
                start, max(start, end + delta - 1)
            )
        )
        if truth and theirs is not None:
            top = root.descendant_for_byte_range(theirs.start_byte, theirs.end_byte - delta)
            truth = top is not None and (top.start_byte, top.end_byte) == (
                theirs.start_byte,
                theirs.end_byte - delta,
            )
    valued = grammar in _SCALARS or grammar in _VALUE_HELPER
    if top is None or not (truth or valued) or not _fit(grammar, raw, top, truth):
        return None
    f = raw[top.start_byte : top.end_byte].decode()
    m = other[top.start_byte : top.end_byte + delta].decode()
    written = _written(str(grammar), root, raw, top, (f, m.replace("\n", " "), truth))
    if written is None:
        return None
    shown = f[1:-1] if top.type == "parenthesized_expression" else f
    differ = "decide otherwise" if truth else "take another value"
    return DecisionProbe(written, " ".join(shown.split()), differ)


def _compared(node: Any) -> tuple[Any, bool]:
    """The expression a probe compares for a change at `node`: the highest truth value of the
    comparisons, connectives and parentheses around it (True), else the highest of those
    (False); None when `node` is in no expression."""
    while node is not None and not node.is_named:
        node = node.parent
    if node is None or node.type.endswith(("statement", "declaration", "_list", "block")):
        return None, False
    path = [node]
    while path[-1].parent is not None and path[-1].parent.type in _AROUND:
        path.append(path[-1].parent)
    truth = [n for n in path if _truth(n)]
    return (truth[-1], True) if truth else (path[-1], False)


def _fit(grammar: str, raw: bytes, top: Any, truth: bool) -> bool:
    """Whether `top` can be evaluated twice and written on its own lines: nothing in it assigns,
    increments or comments (its mutant's text goes on one line); not on a directive's line; a
    value nowhere a constant or no expression is wanted (`_NO_VALUE`); in C and C++, inside a
    function (a statement expression is nowhere else)."""
    line = raw[raw.rfind(b"\n", 0, top.start_byte) + 1 : top.start_byte]
    if line.lstrip().startswith(b"#"):
        return False
    up = top.parent
    label = up.child_by_field_name("value") if up is not None else None
    if not truth and label is not None and up.type == "case_statement" and label == top:
        return False  # C's `case 1:`
    while not truth and up is not None:
        if any(word in up.type for word in _NO_VALUE):
            return False
        up = up.parent
    stack = [top]
    while stack:
        n = stack.pop()
        text = raw[n.start_byte : n.end_byte]
        if n.type in _EFFECTS or "comment" in n.type or ("string" in n.type and b"\n" in text):
            return False
        stack.extend(n.children)
    if grammar not in _SCALARS:
        return True
    up = top.parent
    while up is not None and up.type != "function_definition":
        up = up.parent
    return up is not None


def _written(
    grammar: str, root: Any, raw: bytes, top: Any, fmt: tuple[str, str, bool]
) -> str | None:
    """`raw` with `top` (the fix's text `f`) compared with the mutant's `m`, as a truth value
    or as a value (`t`); None when no helper has a place (Java: no top-level class holds it)."""
    f, m, truth = fmt
    if grammar in _SCALARS:
        text = _SCALAR.format(f=f, flat=f.replace("\n", " "), m=m).encode()
        return (raw[: top.start_byte] + text + raw[top.end_byte :]).decode()
    call, helper = (_HELPER if truth else _VALUE_HELPER)[grammar]
    if grammar in _CONSTANT_HELPER and constant_context(top):
        if not truth:
            return None
        call, helper = _CONSTANT_HELPER[grammar]
    text = call.format(f=f, m=m).encode()
    if top.type == "parenthesized_expression":  # an `if`'s own parentheses kept
        text = b"(" + text + b")"
    return placed(grammar, root, raw, top, (text, helper.format(mark=MARK, fails=_FAILS)))


def placed(grammar: str, root: Any, raw: bytes, node: Any, with_: tuple[bytes, str]) -> str | None:
    """`raw` with `node` replaced by the text of `with_` and its helper where the language
    takes one: after the last line, or, in Java, before the closing brace of the top-level
    class holding `node`, on that brace's line (None: no such class)."""
    text, helper = with_
    body = raw[: node.start_byte] + text + raw[node.end_byte :]
    if grammar != "java":
        return body.decode().rstrip("\n") + "\n" + helper
    closing = _class_end(root, node.start_byte)
    if closing is None:
        return None
    at = closing + len(text) - (node.end_byte - node.start_byte)
    return (body[:at] + helper.encode() + body[at:]).decode()


def _class_end(root: Any, at: int) -> int | None:
    """The byte of the closing brace of the top-level class holding byte `at` (None: an
    interface, an enum, a record, whose bodies a helper does not fit as simply)."""
    for child in root.named_children:
        if child.start_byte <= at < child.end_byte:
            body = child.child_by_field_name("body")
            if child.type != "class_declaration" or body is None:
                return None
            return int(body.end_byte) - 1
    return None


def changed(raw: bytes, other: bytes) -> tuple[int, int, int] | None:
    """(first byte changed, end of the change in `raw`, its length in `other` less in `raw`)."""
    if raw == other:
        return None
    pairs = zip(raw, other, strict=False)
    start = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(raw), len(other)))
    tail, limit = 0, min(len(raw), len(other)) - start
    while tail < limit and raw[-1 - tail] == other[-1 - tail]:
        tail += 1
    return start, len(raw) - tail, len(other) - len(raw)


def _truth(node: Any) -> bool:
    """Whether `node` is a truth value: a comparison, a connective, a negation (or one in
    parentheses)."""
    if node.type == "parenthesized_expression":
        inner = node.named_children
        return len(inner) == 1 and _truth(inner[0])
    if node.type not in ("binary_expression", "unary_expression"):
        return False
    operator = node.child_by_field_name("operator") or (node.children or [None])[0]
    return operator is not None and operator.type in _TRUTH_OPERATORS

"""A Java file whose chosen methods report each call the tests make (spice_engine.strength
.traced): what the method was given (its receiver and arguments), what it returned or threw and
what its receiver and arguments hold afterwards, so a survivor whose method answers the tests'
own calls otherwise is shown, and one answering them all alike is held.

The method is kept under another name (`m` → `m$spice`, private, or `default` in an interface,
annotations left to the caller) and a method with its signature, annotations and modifiers
takes its place, written in front of it on its first line: it walks what it is given, calls the
kept one, walks what came back (a throwable is recorded and thrown again: a precise rethrow, so
the `throws` clause is the method's own). Constructors, methods without a body and old `int m()[]`
declarations are not traced. The walker, a package-private class appended to the file
(spice_engine.langs.java_walker), appends the lines to `/tmp/<mark>` in the sandbox.
"""

from __future__ import annotations

import hashlib
from typing import Any

from spice_engine.langs.java_walker import helper
from spice_engine.langs.trace_edits import (
    Edit,
    callers_in_file,
    holding,
    ident,
    parsed,
    spliced,
    text_of,
)

FUNCTIONS = frozenset({"method_declaration", "constructor_declaration", "lambda_expression"})


def traced(source: str, at: list[int], tag: str, mark: str) -> tuple[str, list[str]] | None:
    """`source` with the method holding each byte of `at` recording its calls, and the id of
    each byte's method; None when one is in no method that can be traced."""
    raw = source.encode()
    root = parsed("java", source).root_node
    methods: dict[int, Any] = {}
    ids: list[str] = []
    for byte in at:
        node = holding(root, byte, len(raw), frozenset({"method_declaration"}))
        inner = holding(root, byte, len(raw), FUNCTIONS)
        if node is None or inner is None or inner.start_byte != node.start_byte:
            return None  # a constructor, or a lambda's body (called as something else)
        if not _traceable(node):
            return None
        methods[node.start_byte] = node
        ids.append(ident(tag, node))
    cls = "SpiceTrace" + hashlib.sha256(raw).hexdigest()[:8]
    edits: list[Edit] = []
    for node in methods.values():
        edits += _method_edits(raw, node, ident(tag, node), cls)
    edits.append(Edit(len(raw), len(raw), "\n" + helper(cls, mark)))
    return spliced(raw, edits), ids


def _traceable(node: Any) -> bool:
    return (
        node.child_by_field_name("body") is not None
        and node.child_by_field_name("dimensions") is None
    )


def _modifiers(node: Any) -> Any | None:
    return next((c for c in node.children if c.type == "modifiers"), None)


def _in_interface(node: Any) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("class_body", "interface_body"):
        parent = parent.parent
    return parent is not None and parent.type == "interface_body"


def _params(raw: bytes, node: Any) -> list[str]:
    names: list[str] = []
    for p in node.child_by_field_name("parameters").named_children:
        if p.type == "formal_parameter":
            names.append(text_of(raw, p.child_by_field_name("name")))
        elif p.type == "spread_parameter":
            declarator = next(c for c in p.named_children if c.type == "variable_declarator")
            names.append(text_of(raw, declarator.child_by_field_name("name")))
    return names


def _method_edits(raw: bytes, node: Any, key: str, cls: str) -> list[Edit]:
    mods = _modifiers(node)
    mod_text = text_of(raw, mods) if mods is not None else ""
    static = "static" in mod_text.split()
    name = node.child_by_field_name("name")
    kept = f"{text_of(raw, name)}$spice{node.start_point[0] + 1}"  # an override of it stays apart
    body = node.child_by_field_name("body")
    signature = _without_comments(raw, node, body.start_byte)
    returns = node.child_by_field_name("type")
    void = returns is not None and returns.type == "void_type"
    params = _params(raw, node)
    given = ", ".join(([] if static else ["this"]) + params)
    call = f"{kept}({', '.join(params)})"
    on, leave = f"{cls}.on({java_string(key)})", f"{cls}.leave({java_string(key)}, spiceE, "
    result = (
        f"{call}; if (spiceOn) {leave}null, spiceG); return;"
        if void
        else (
            f"{text_of(raw, returns)} spiceR = {call}; if (spiceOn) {leave}spiceR, spiceG); "
            "return spiceR;"
        )
    )
    wrapper = (
        " ".join(signature.split())
        + f" {{ boolean spiceOn = {on}; Object[] spiceG = new Object[]{{{given}}}; "
        f'String spiceE = spiceOn ? {cls}.walk(spiceG) : ""; try {{ {result} }} '
        f"catch (Throwable spiceT) {{ if (spiceOn) {leave}{cls}.thrown(spiceT), spiceG); "
        "throw spiceT; } } "
    )
    kind = ("static " if static else "") + ("default" if _in_interface(node) else "private")
    if _in_interface(node) and static:
        kind = "static"  # a static interface method (no private ones before Java 9)
    if mods is not None:
        newlines = "\n" * mod_text.count("\n")
        edits = [
            Edit(node.start_byte, node.start_byte, wrapper),
            Edit(mods.start_byte, mods.end_byte, kind + newlines),
        ]
    else:  # one insertion: two at one place could come out in either order
        edits = [Edit(node.start_byte, node.start_byte, wrapper + kind + " ")]
    edits.append(Edit(name.start_byte, name.end_byte, kept))
    return edits


def _without_comments(raw: bytes, node: Any, end: int) -> str:
    """`node`'s text up to byte `end`, each comment in it blanked: the stand-in's signature is
    written on one line, where a `// …` would swallow the rest (gson's `@SuppressWarnings(…)
    // Casts guarded by conditionals.` before `getTypeAdapter`)."""
    text = bytearray(raw[node.start_byte : end])
    stack = [node]
    while stack:
        n = stack.pop()
        if n.start_byte >= end:
            continue
        if n.type in ("line_comment", "block_comment", "comment"):
            for i in range(n.start_byte, min(n.end_byte, end)):
                text[i - node.start_byte] = 0x20
            continue
        stack.extend(n.children)
    return text.decode()


def java_string(text: str) -> str:
    """`text` (a path of the tree's) as a Java string literal. Octal escapes, not `\\u`:
    Java reads those before the literal, so `\\u000a` would end the line in it."""
    body = "".join(
        c if c.isprintable() and c not in '"\\' else f"\\{ord(c):o}" if ord(c) < 256 else c
        for c in text
    )
    return f'"{body}"'


def callers(source: str, at: int) -> list[int]:
    """The file's callers of the private method holding byte `at` (spice_engine.langs
    .trace_edits.callers_in_file)."""
    return callers_in_file("java", source, at, frozenset({"method_declaration"}), _private)


def _private(raw: bytes, node: Any) -> bool:
    mods = _modifiers(node)
    return mods is not None and "private" in text_of(raw, mods).split()

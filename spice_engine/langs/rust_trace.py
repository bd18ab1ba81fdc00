"""A Rust file whose chosen functions report each call the tests make (spice_engine.strength
.traced): what the function was given and what it returned, as `Debug` prints them, so a
survivor whose function answers the tests' own calls otherwise is shown, and one answering them
all alike is held.

Rust has no reflection: a value is printed with `{:?}` where its type implements `Debug`, and as
`?` where it does not (a method found by auto-reference: `Debug` types match first; no bound is
added, so a generic function still builds). The body runs as a closure called at once, with the
function's return type: `return` and `?` mean what they meant. What a `&mut` argument is left
holding is not read (the returned value may borrow it). Functions the closure cannot hold are not
traced: `async`, `const`, `unsafe` and `extern` ones, and those returning `impl Trait` or `!`.
Each call's line is appended to `/tmp/<mark>` in the sandbox (a program the tests run and
read the standard error of, ripgrep's `rg`, writes there too, unseen by them); the first 200
calls of each function. Everything is written on the function's first and
last lines: every line keeps its number.
"""

from __future__ import annotations

from typing import Any

from spice_engine.langs.trace_edits import (
    Edit,
    callers_in_file,
    holding,
    ident,
    parsed,
    spliced,
    text_of,
)

FUNCTIONS = frozenset({"function_item"})
CALLS_KEPT = 200
_UNTRACEABLE = ("async", "const", "unsafe", "extern")

_PRELUDE = (
    "#[allow(dead_code, unused)] struct SpiceW<'a, T: ?Sized>(&'a T); "
    "#[allow(dead_code, unused)] trait SpiceDbg { fn spice_dbg(&self) -> String; } "
    "#[allow(dead_code, unused)] impl<'a, T: ::std::fmt::Debug + ?Sized> SpiceDbg for "
    'SpiceW<\'a, T> { fn spice_dbg(&self) -> String { format!("{:?}", self.0) } } '
    "#[allow(dead_code, unused)] trait SpiceOpaque { fn spice_dbg(&self) -> String; } "
    "#[allow(dead_code, unused)] impl<'a, 'b, T: ?Sized> SpiceOpaque for &'b SpiceW<'a, T> "
    '{ fn spice_dbg(&self) -> String { String::from("?") } } '
    "#[allow(dead_code, unused)] fn spice_h(s: &str) -> String { "
    "use ::std::hash::{Hash, Hasher}; "
    "let mut h = ::std::collections::hash_map::DefaultHasher::new(); s.hash(&mut h); "
    'format!("{:x}", h.finish()) } '
    "#[allow(dead_code, unused)] fn spice_m(s: &str) -> String { "
    "s.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect() } "
    "static SPICE_N: ::std::sync::atomic::AtomicUsize = "
    "::std::sync::atomic::AtomicUsize::new(0); "
    "let spice_n = SPICE_N.fetch_add(1, ::std::sync::atomic::Ordering::Relaxed); "
    "let spice_on = spice_n < LIMIT; "
    "#[allow(dead_code, unused)] fn spice_w(line: &str, at: &str) { use ::std::io::Write as _; "
    "if let Ok(mut f) = ::std::fs::OpenOptions::new().append(true).create(true).open(at) "
    "{ let _ = f.write_all(line.as_bytes()); } } "
)


def traced(source: str, at: list[int], tag: str, mark: str) -> tuple[str, list[str]] | None:
    """`source` with the innermost function holding each byte of `at` recording its calls, and
    the id of each byte's function; None when one is in no function that can be traced."""
    raw = source.encode()
    root = parsed("rust", source).root_node
    if b"#![no_std]" in raw:
        return None
    functions: dict[int, Any] = {}
    ids: list[str] = []
    for byte in at:
        node = holding(root, byte, len(raw), FUNCTIONS)
        if node is None or not _traceable(raw, node):
            return None
        functions[node.start_byte] = node
        ids.append(ident(tag, node))
    edits: list[Edit] = []
    for node in functions.values():
        edits += _function_edits(raw, node, ident(tag, node), mark)
    return spliced(raw, edits), ids


def _traceable(raw: bytes, node: Any) -> bool:
    if node.child_by_field_name("body") is None:
        return False
    modifiers = next((c for c in node.children if c.type == "function_modifiers"), None)
    if modifiers is not None and any(w in text_of(raw, modifiers) for w in _UNTRACEABLE):
        return False
    result = node.child_by_field_name("return_type")
    return result is None or not (
        result.type in ("abstract_type", "never_type") or "impl " in text_of(raw, result)
    )


def _given(raw: bytes, node: Any) -> list[str]:
    """The names of the values the function is given that can be printed (`self`, plain and
    `mut` bindings; a destructuring pattern or `_` is left out)."""
    names: list[str] = []
    for param in node.child_by_field_name("parameters").named_children:
        if param.type == "self_parameter":
            names.append("self")
        elif param.type == "parameter":
            pattern = param.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "mut_pattern":
                pattern = pattern.named_children[-1] if pattern.named_children else None
            if pattern is not None and pattern.type == "identifier":
                names.append(text_of(raw, pattern))
    return names


def _function_edits(raw: bytes, node: Any, key: str, mark: str) -> list[Edit]:
    name = _rust_string(key)  # a path of the tree's: an argument, never in a format string
    body = node.child_by_field_name("body")
    result = node.child_by_field_name("return_type")
    returns = f" -> {text_of(raw, result)}" if result is not None else ""
    shown = ", ".join(f"(&SpiceW(&{n})).spice_dbg()" for n in _given(raw, node))
    prelude = _PRELUDE.replace("LIMIT", str(CALLS_KEPT))
    head = (
        f'{prelude}if spice_n == 0 {{ spice_w(&format!("{mark}\\t{{}}\\tentered\\n", {name}), '
        f'"/tmp/{mark}"); }} '
        f'let spice_in: String = if spice_on {{ vec![{shown}].join("\\u{{1f}}") }} '
        f"else {{ String::new() }}; let spice_r = (||{returns} {{ "
    )
    line = (
        f'format!("{mark}\\t{{}}\\t{{}}\\t{{}}\\t{{}}\\t{{}}\\t-\\t-\\n", {name}, spice_h(&spice_in), '
        "spice_h(&spice_m(&spice_in)), spice_h(&spice_o), spice_h(&spice_m(&spice_o)))"
    )
    tail = (
        " })(); if spice_on { let spice_o = (&SpiceW(&spice_r)).spice_dbg(); "
        f'spice_w(&{line}, "/tmp/{mark}"); }} spice_r '
    )
    return [
        Edit(body.start_byte + 1, body.start_byte + 1, " " + head),
        Edit(body.end_byte - 1, body.end_byte - 1, tail),
    ]


def callers(source: str, at: int) -> list[int]:
    """The file's callers of the private function holding byte `at` (no `pub`, not a trait's
    method: spice_engine.langs.trace_edits.callers_in_file)."""
    return callers_in_file("rust", source, at, FUNCTIONS, _private)


def _private(raw: bytes, node: Any) -> bool:
    if any(c.type == "visibility_modifier" for c in node.children):
        return False
    owner = node.parent.parent if node.parent is not None else None
    return not (
        owner is not None and owner.type == "impl_item" and owner.child_by_field_name("trait")
    )


def _rust_string(text: str) -> str:
    """`text` as a Rust string literal (a quote, a backslash, a brace or a newline in a file's
    name stays text)."""
    body = "".join(c if c.isprintable() and c not in '"\\' else f"\\u{{{ord(c):x}}}" for c in text)
    return f'"{body}"'

"""The name of the function a syntax node sits in, in any language tree-sitter reads: what a
survivor is reported by (`parse_slice()` rather than "line 66") and what the ranking matches
against the names an issue gives (spice_engine.strength.rank).

Grammars name a function in different places: a `name` field (Go, Rust, Java, JavaScript's
declarations and methods), or, in C and C++, the innermost identifier of a declarator chain
(`static jv *parse_slice(...)`, `auto formatter<path>::format(...) -> ...`). A function without
a name of its own (a closure, a lambda, an arrow function, a Go func literal) takes the name it
is bound to (`const diff = (a, b) => ...`, `exports.diff = function ...`), and otherwise is
part of the function it is written in: its lines are that function's code.

A call (`method_invocation`, whose grammar also has a `name`) is no function: a mutant inside a
call's arguments belongs to the function making the call.
"""

from __future__ import annotations

from typing import Any

_NAMED = {
    "function_definition",  # C, C++ (declarator chain); Python
    "function_declaration",  # Go, JavaScript
    "generator_function_declaration",
    "function_item",  # Rust
    "method_declaration",  # Go, Java
    "method_definition",  # JavaScript
    "constructor_declaration",  # Java
    "compact_constructor_declaration",
}
_ANONYMOUS = {
    "arrow_function",
    "function_expression",
    "generator_function",
    "function",  # older JavaScript grammars' function expression
    "func_literal",
    "closure_expression",
    "lambda_expression",
}
_BINDINGS = {
    "variable_declarator": "name",  # JavaScript, Java
    "init_declarator": "declarator",  # C++
    "assignment_expression": "left",
    "pair": "key",
    "field_definition": "property",
    "public_field_definition": "name",
    "let_declaration": "pattern",  # Rust
}
_NAMES = {
    "identifier",
    "field_identifier",
    "property_identifier",
    "private_property_identifier",
    "destructor_name",
    "operator_name",
    "type_identifier",
}


def enclosing_function(node: Any) -> str | None:
    """The name of the function `node` is part of (None: none, or one no name can be read of)."""
    while node is not None:
        if node.type in _NAMED:
            return _name_of(node)
        if node.type in _ANONYMOUS:
            bound = _bound_name(node)
            if bound is not None:
                return bound
        node = node.parent
    return None


def _name_of(definition: Any) -> str | None:
    name = definition.child_by_field_name("name")
    if name is not None:
        return _last_name(name)
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type.endswith("declarator"):
        inner = declarator.child_by_field_name("declarator")
        if inner is None:  # `(*f)(...)`: the parenthesised declarator has no field
            inner = next(iter(declarator.named_children), None)
        declarator = inner
    return _last_name(declarator) if declarator is not None else None


def _bound_name(function: Any) -> str | None:
    """The name an anonymous function is given where it is written (None: it is given none,
    e.g. an argument of a call)."""
    parent = function.parent
    field = _BINDINGS.get(getattr(parent, "type", ""))
    if field is None:
        return None
    if parent.type == "assignment_expression" and parent.child_by_field_name("right") != function:
        return None
    target = parent.child_by_field_name(field)
    return _last_name(target) if target is not None else None


def _last_name(node: Any) -> str | None:
    """The last plain name in `node` (`fmt::formatter<path>::format` -> `format`,
    `exports.diff` -> `diff`, `"key"` -> `key`)."""
    if node.type in _NAMES:
        return str(node.text.decode("utf-8", "replace"))
    if node.type in ("string", "string_literal"):
        text = node.text.decode("utf-8", "replace").strip("'\"`")
        return text if text.isidentifier() else None
    for child in reversed(node.named_children):
        if child.type in ("template_argument_list", "type_arguments", "arguments"):
            continue
        found = _last_name(child)
        if found is not None:
            return found
    return None

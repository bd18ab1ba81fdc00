"""What only says something, in the languages tree-sitter reads: the arguments of an error
built to be returned or thrown, of a panic, and of a log call. As in Python
(spice_engine.strength.mutant_context), a mutant there changes the text of a message, not what
the fix does (go-zero-1783's `fmt.Errorf("… %q", fullName, v.String())` → `v`: `%q` formats a
`json.Number` through its `String()` anyway), so none is made; raising, the error's kind and
whether a log call happens at all still matter, and stay mutable.

Only names every codebase means the same by: Go's `fmt.Errorf`, `errors.New`/`Errorf`/`Wrap…`,
`panic`; what Java, JavaScript and C++ `throw`; Rust's `panic!`-family and log macros; and a
log call (`log.Println`, `logger.Warnf`, `console.warn`, `LOG.debug`): a level or print method
on a receiver named for logging, or `console` — a name, never a call's result: a logging
library's own writing (go-zero's `getLogger(ctx).Errorf(…)` in logc) is what it does.
"""

from __future__ import annotations

import re
from typing import Any

_ERRORS = {
    ("fmt", "Errorf"), ("errors", "New"), ("errors", "Errorf"), ("errors", "Wrap"),
    ("errors", "Wrapf"), ("", "panic"),
}  # fmt: skip
"""(receiver, name) of Go's calls that build an error's text or panic with it."""
_LEVELS = re.compile(
    r"(debug|info|notice|warn|warning|error|severe|slow|fatal|trace|critical|print|log)(f|ln)?"
)
"""A log call's method: its level (go-zero's `Slowf`, `Severef` among them) or a print, with
Go's `f`/`ln` suffixes."""
_MACROS = {"panic", "unreachable", "unimplemented", "todo", "debug", "info", "warn", "error",
           "trace", "eprintln", "eprint"}  # fmt: skip
"""Rust's macros that panic with a message or log one."""
_PANICS = {"panic", "unreachable", "unimplemented", "todo"}
_RELEASES = re.compile(r"free|fclose|close|drop|\w+_(free|destroy|release|unref|dispose)")
"""Functions (no receiver) that only give memory or a handle back."""
_THROWN = {"throw_statement", "throw_expression"}
_IFS = {"if_statement", "if_expression"}
_BLOCKS = {"block", "statement_list", "compound_statement", "statement_block", "else_clause"}
_COMMENTS = {"comment", "line_comment", "block_comment"}
_CALLS = {"call_expression", "method_invocation"}


def _callee(node: Any) -> tuple[str, str]:
    """(receiver, name) of a call: `log.Println` → ("log", "Println"), `panic` → ("", "panic")."""
    if node.type == "method_invocation":  # Java
        receiver, name = node.child_by_field_name("object"), node.child_by_field_name("name")
    else:
        function = node.child_by_field_name("function")
        if function is None:
            return "", ""
        if function.type in ("identifier", "field_identifier"):
            return "", function.text.decode("utf-8", "replace")
        receiver = next(
            (function.child_by_field_name(f) for f in ("operand", "object", "value", "argument")
             if function.child_by_field_name(f) is not None),
            None,
        )  # fmt: skip
        name = function.child_by_field_name("field") or function.child_by_field_name("property")
    text = receiver.text.decode("utf-8", "replace") if receiver is not None else ""
    return text, name.text.decode("utf-8", "replace") if name is not None else ""


def _logs(receiver: str, name: str) -> bool:
    # A name, not a call: `getLogger(ctx).Errorf` is go-zero's logc writing its own product.
    if not re.fullmatch(r"[\w$.]+", receiver):
        return False
    said = receiver.rsplit(".", 1)[-1].lower()
    if not ("log" in said or said == "console"):
        return False
    return _LEVELS.fullmatch(name.lower()) is not None


def inner(statement: Any) -> Any:
    """What an expression statement holds (its first named child that is no comment)."""
    return next((c for c in statement.named_children if c.type not in _COMMENTS), None)


def says_only(statement: Any) -> bool:
    """Whether an expression statement only logs or panics (`log.Printf(…)`, `panic(err)`,
    `console.warn(…)`, `warn!(…)`): removing it changes what is said, or turns a crash into
    going on, not what the fix computes."""
    held = inner(statement)
    return held is not None and _call_says(held)


def _call_says(node: Any, panics: bool = True) -> bool:
    """Whether a call or macro only logs (C's prints to `stderr` among them), or (with
    `panics`) panics or builds an error."""
    if node.type == "macro_invocation":
        macro = node.child_by_field_name("macro")
        name = macro.text.decode().rsplit("::", 1)[-1] if macro is not None else ""
        return name in (_MACROS if panics else _MACROS - _PANICS)
    if node.type not in _CALLS:
        return False
    receiver, name = _callee(node)
    errors = panics and (receiver.rsplit(".", 1)[-1], name) in _ERRORS
    return errors or _logs(receiver, name) or (not receiver and _to_stderr(node, name))


def builds_error(call: Any) -> bool:
    """Whether a Go call builds an error (`fmt.Errorf(…)`, `errors.New(…)`), not a panic."""
    if call.type not in _CALLS:
        return False
    receiver, name = _callee(call)
    return bool(receiver) and (receiver.rsplit(".", 1)[-1], name) in _ERRORS


def _to_stderr(call: Any, name: str) -> bool:
    """C's `fprintf(stderr, …)`, `fputs(…, stderr)`, `perror(…)`: a message on standard error."""
    if name == "perror":
        return True
    arguments = call.child_by_field_name("arguments")
    given = [a.text for a in arguments.named_children] if arguments is not None else []
    where = {"fprintf": 0, "vfprintf": 0, "fputs": -1, "fputc": -1}.get(name)
    return where is not None and len(given) > 1 and given[where] == b"stderr"


def releases_only(statement: Any) -> bool:
    """Whether an expression statement only gives memory or a handle back (`free(p)`,
    `jv_free(v)`, `fclose(fp)`, Rust's `drop(x)`): removing it leaks, which no test of
    behaviour sees (jq-3165's `jv_free(data)`)."""
    held = inner(statement)
    if held is None or held.type not in _CALLS:
        return False
    receiver, name = _callee(held)
    return not receiver and _RELEASES.fullmatch(name) is not None


def logs_only(node: Any) -> bool:
    """Whether `node` is an `if` whose every branch only logs (`if d > slow {
    logger.Slowf(…) } else { logger.Infof(…) }`, go-zero-2116): its condition picks what is
    said, not what is done — an arid node, as Google's mutation testing calls what it
    never mutates. Not one that panics: whether it does still matters."""
    if node.type not in _IFS:
        return False
    branches = [node.child_by_field_name(f) for f in ("consequence", "alternative")]
    leaves: list[bool] = []
    return all(_only_said(b, leaves) for b in branches if b is not None) and bool(leaves)


def _only_said(node: Any, leaves: list[bool]) -> bool:
    """Whether every statement under a branch only logs (each one noted in `leaves`)."""
    if node.type in _IFS:
        return logs_only(node) and _noted(leaves)
    if node.type in _BLOCKS:
        return all(_only_said(c, leaves) for c in node.named_children if c.type not in _COMMENTS)
    if node.type == "expression_statement":
        held = inner(node)
        return held is not None and _only_said(held, leaves)
    return _call_says(node, panics=False) and _noted(leaves)


def _noted(leaves: list[bool]) -> bool:
    leaves.append(True)
    return True


def only_says(node: Any) -> bool:
    """Whether `node` holds only a message's text: the arguments of an error-building call, a
    panic or a log call, what a `throw` constructs, or a panicking or logging macro's tokens."""
    parent = node.parent
    if parent is None:
        return False
    if node.type in ("argument_list", "arguments"):
        if parent.parent is not None and parent.parent.type in _THROWN:
            return True  # `throw new E(…)`, `throw E(…)`: the error's kind still matters
        if parent.type in _CALLS:
            return _call_says(parent)
    if node.type == "token_tree" and parent.type == "macro_invocation":
        macro = parent.child_by_field_name("macro")
        return macro is not None and macro.text.decode().rsplit("::", 1)[-1] in _MACROS
    return False

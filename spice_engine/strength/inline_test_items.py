"""Test code inside a source file the fix changes: Rust's `#[cfg(test)]` modules and `#[test]`
functions. A fix's pull request may add a unit test beside the code it changes (ripgrep-1367's
`regression_1319` in `grep-regex/src/literal.rs`), and a published instance's gold patch keeps
that hunk, its split being by file; a mutant there changes a test, not the fix, and is no
wrong fix to try (its assertion left out "survived": no test checks a test).
"""

from __future__ import annotations

import re
from typing import Any

_ITEMS = frozenset({"mod_item", "function_item", "impl_item"})
_TEST = re.compile(r"#\[\s*(?:[\w:]+::)?test\s*[\](]")
"""`#[test]`, `#[tokio::test]`, `#[test_case(…)]` is not one (its name is longer)."""
_CFG_TEST = re.compile(r"#\[\s*cfg\s*\((?P<inside>.*)\)\s*\]", re.DOTALL)
_NOT_TEST = re.compile(r"\bnot\s*\(\s*test\s*\)")


def inline_test(node: Any) -> bool:
    """Whether `node` is a Rust item marked as test code by an attribute before it."""
    if node.type not in _ITEMS:
        return False
    before = node.prev_named_sibling
    while before is not None and before.type in ("attribute_item", "line_comment", "block_comment"):
        if before.type == "attribute_item" and _marks_test(before.text.decode("utf-8", "replace")):
            return True
        before = before.prev_named_sibling
    return False


def _marks_test(attribute: str) -> bool:
    if _TEST.match(attribute):
        return True
    cfg = _CFG_TEST.match(attribute)
    if cfg is None:
        return False
    inside = _NOT_TEST.sub("", re.sub(r'"[^"]*"', '""', cfg.group("inside")))
    return re.search(r"\btest\b", inside) is not None and not inside.lstrip().startswith("not")

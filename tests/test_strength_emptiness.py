"""An emptiness test's `0` is not moved to `1` (it asks only for a one-element input, another
than the issue's: go-zero-964's `len(c.User) > 0`, judged edge four times), in every language;
the test's other mutants, and a `0` compared with anything but a length, keep theirs. Each
fix comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

import pytest

from spice_engine.strength.mutants import find_sites as python_sites
from tests.strength_sites_support import fix_sites

CASES = {
    "go": (
        "core/config.go",
        "package c\n\nfunc ok(user string, n int) bool {\n\treturn true\n}\n",
        "package c\n\nfunc ok(user string, n int) bool {\n\tif len(user) > 0 && n > 0 {\n"
        "\t\treturn false\n\t}\n\treturn true\n}\n",
    ),
    "rust": (
        "src/lib.rs",
        "fn ok(user: &str, n: i32) -> bool {\n    true\n}\n",
        "fn ok(user: &str, n: i32) -> bool {\n    !(user.len() > 0 && n > 0)\n}\n",
    ),
    "javascript": (
        "src/ok.js",
        "function ok(user, n) {\n  return true;\n}\n",
        "function ok(user, n) {\n  return !(user.length > 0 && n > 0);\n}\n",
    ),
    "java": (
        "src/Ok.java",
        "class Ok {\n  boolean ok(java.util.List<String> user, int n) {\n    return true;\n  }\n}\n",
        "class Ok {\n  boolean ok(java.util.List<String> user, int n) {\n"
        "    return !(user.size() > 0 && n > 0);\n  }\n}\n",
    ),
    "c": (
        "src/ok.c",
        "int ok(const char *user, int n) {\n  return 1;\n}\n",
        "int ok(const char *user, int n) {\n  return !(strlen(user) > 0 && n > 0);\n}\n",
    ),
}


@pytest.mark.parametrize("grammar", sorted(CASES))
def test_a_length_compared_with_zero_keeps_every_mutant_but_zero_to_one(
    grammar: str, tmp_path: Path
) -> None:
    path, before, after = CASES[grammar]
    changes = [
        site.split(" ", 1)[1] for site in fix_sites(tmp_path, path, (before, after), grammar)
    ]
    # `n > 0`'s zero is moved; the length's is not, though its test still changes.
    assert changes.count("`0` → `1`") == 1, changes
    assert any(c.startswith("`&&") for c in changes), changes
    assert changes.count("`> 0` → `>= 0`") == 2, changes


def test_python_moves_an_emptiness_zero_down_never_up() -> None:
    source = "def ok(user, n):\n    return not (len(user) > 0 and n > 0 and n != user.count(0))\n"
    changes = [s.change for s in python_sites(source, {2})]
    # `n > 0` keeps both; `len(user) > 0` keeps only `-1` (always true: the test gone). The
    # `0` given to `count` is an argument, not a bound of it.
    assert changes.count("`0` → `1`") == 2, changes
    assert changes.count("`0` → `-1`") == 3, changes

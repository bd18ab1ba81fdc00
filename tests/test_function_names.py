"""A survivor is reported by the function it sits in, in every grammar: C's and C++'s names sit
in declarator chains, closures take the name they are bound to or their enclosing function's,
and a call is never taken for a function."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.strength_sites_support import fix_sites

FIXES = [
    (
        "src/jv_aux.c",
        "c",
        "static jv *parse_slice(jv j, double end) {\n  if (end < 0) end = 0;\n  return j;\n}\n",
        "static jv *parse_slice(jv j, double end) {\n  if (end < 1) end = 0;\n  return j;\n}\n",
        "parse_slice",
    ),
    (
        "include/std.h",
        "cpp",
        "template <typename C>\nauto formatter<path, C>::format(const path& p) const -> int {\n"
        "  return spec == 'g';\n}\n",
        "template <typename C>\nauto formatter<path, C>::format(const path& p) const -> int {\n"
        "  return spec != 'n';\n}\n",
        "format",
    ),
    (
        "src/utils.js",
        "javascript",
        "const monthDiff = (a, b) => {\n  return a - b\n}\n",
        "const monthDiff = (a, b) => {\n  return a - b + 1\n}\n",
        "monthDiff",
    ),
    (
        "src/util.rs",
        "rust",
        "fn replace(m: &[u32]) {\n    m.iter().filter(|x| **x > 1);\n}\n",
        "fn replace(m: &[u32]) {\n    m.iter().filter(|x| **x >= 1);\n}\n",
        "replace",
    ),
    (
        "src/main/java/A.java",
        "java",
        "class A {\n  int resolve(int a) {\n    return check(a > 1);\n  }\n}\n",
        "class A {\n  int resolve(int a) {\n    return check(a >= 1);\n  }\n}\n",
        "resolve",
    ),
    (
        "logs.go",
        "go",
        "package logx\n\nfunc (l *logger) write(n int) {\n\tgo func() {\n\t\tl.flush(n > 0)\n\t}()\n}\n",
        "package logx\n\nfunc (l *logger) write(n int) {\n\tgo func() {\n\t\tl.flush(n > 1)\n\t}()\n}\n",
        "write",
    ),
]


@pytest.mark.parametrize("path,grammar,bug,fix,function", FIXES, ids=[f[1] for f in FIXES])
def test_each_mutant_names_the_function_it_sits_in(
    tmp_path: Path, path: str, grammar: str, bug: str, fix: str, function: str
) -> None:
    functions = fix_sites(tmp_path, path, (bug, fix), grammar, said=lambda s: s.function)
    assert functions, "the fix gives mutants"
    assert set(functions) == {function}

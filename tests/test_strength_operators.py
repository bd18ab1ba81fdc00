"""Issue 49's operators on real fixes' code: a method call removed (sympy-20154 adds `.copy()`),
a keyword argument dropped, a default flipped, a bound moved by one; comments inert; messages
never mutated. Each mutant is written both ways (text edit and rewrite) and inside the schema
(no execution of a repository)."""

from __future__ import annotations

import dataclasses
import difflib
import os
from typing import Any

from spice_engine.langs import languages
from spice_engine.langs.capabilities import copying_calls
from spice_engine.strength import mutants, sources, syntax_mutants
from spice_engine.strength.candidates import _add_syntax
from spice_engine.strength.choose import choose
from spice_engine.strength.new_tokens import new_tokens
from spice_engine.strength.parts import changed_lines, parts

PARTITIONS = '''def partitions(n, size=False):
    """sympy's partitions(), cut down: one dict, updated in place between yields."""
    ms = {1: n}
    for _ in range(n):
        if size:
            yield sum(ms.values()), ms
        else:
            yield ms
        ms[1] = ms.get(1, 0) + 1
'''
COPIED = PARTITIONS.replace("), ms\n", "), ms.copy()\n").replace("yield ms\n", "yield ms.copy()\n")
"""sympy-20154's fix: every partition yielded is a copy."""


def _patch(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(True), after.splitlines(True), n=1)
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n" + "".join(list(lines)[2:])


def _run(source: str, name: str, *args: Any) -> Any:
    space: dict[str, Any] = {}
    exec(compile(source, "<mutant>", "exec"), space)
    return space[name](*args)


def test_a_fix_that_adds_copy_gives_a_mutant_without_it() -> None:
    patch = _patch("p.py", PARTITIONS, COPIED)
    lines = changed_lines(patch)
    got = choose({"p.py": COPIED}, lines, 20, new_tokens(patch))
    # Before: `no_mutants` (a yield is no statement to remove, `.copy()` no operator's).
    assert [(c.site.operator, c.site.change) for c in got.chosen] == [
        ("method call removed", "`.copy()` removed from `ms.copy()`")
    ] * 2
    assert all(c.site.switchable for c in got.chosen)
    wrong = got.chosen[1].source
    assert "yield ms\n" in wrong and "yield sum(ms.values()), ms.copy()" in wrong
    # The wrong fix: every partition collected is the same dict.
    assert list(_run(COPIED, "partitions", 2)) == [{1: 2}, {1: 3}]
    assert list(_run(wrong, "partitions", 2)) == [{1: 4}, {1: 4}]


CALLS = (
    "def f(x, n, keep_attrs: bool | None = None, how=DEFAULT, names: list[str] | None = None):\n"
    "    y = g(x, copy=False)\n"
    "    self.reset()\n"
    "    for i in range(len(x)):\n"
    "        y = y[:n].strip().lower()\n"
    "    return y.items()\n"
)
ALL = {1, 2, 3, 4, 5, 6}


def _changes(source: str, lines: set[int], operator: str) -> list[str]:
    return [s.change for s in mutants.find_sites(source, lines) if s.operator == operator]


def test_calls_keywords_defaults_and_bounds_each_have_their_operator() -> None:
    assert _changes(CALLS, ALL, "method call removed") == [
        "`.strip()` removed from `y[:n].strip()`",
        "`.lower()` removed from `y[:n].strip().lower()`",
        "`.items()` removed from `y.items()`",
    ]  # not `self.reset()`: a whole statement, whose removal is its own operator
    assert _changes(CALLS, ALL, "keyword removed") == ["`copy=False` removed from `g()`"]
    assert _changes(CALLS, ALL, "default flipped") == [
        "default `None` → `True`",  # an annotation's bool
        "default `DEFAULT` → `None`",
        "default `None` → `[]`",
    ]
    assert _changes(CALLS, ALL, "bound") == [
        "`len(x)` → `len(x) + 1`",
        "`len(x)` → `len(x) - 1`",
        "`n` → `n + 1`",
        "`n` → `n - 1`",
    ]
    # A default flipped runs when the function is defined: one process each, never switched.
    defaults = [s for s in mutants.find_sites(CALLS, {1}) if s.operator == "default flipped"]
    assert defaults and not any(s.switchable for s in defaults)


def test_each_new_mutant_is_written_alike_as_text_edit_rewrite_and_schema() -> None:
    sites = mutants.find_sites(CALLS, ALL)
    new = {"method call removed", "keyword removed", "default flipped", "bound"}
    assert new <= {s.operator for s in sites}
    for site in sites:
        plain = mutants.plain(CALLS, ALL, site.id)
        edited = sources.mutant_source(CALLS, ALL, site)
        assert sources.same_program(plain, edited), (site, plain, edited)
    schema = sources.schema(CALLS, ALL, {s.id for s in sites if s.switchable})
    compile(schema, "<schema>", "exec")


LOOP = "def head(x, n):\n    return [x[i] for i in range(n)]\n"


def test_a_moved_bound_runs_one_step_further_or_shorter() -> None:
    sites = [s for s in mutants.find_sites(LOOP, {2}) if s.operator == "bound"]
    schema = sources.schema(LOOP, {2}, {s.id for s in sites})
    got = []
    for site in sites:
        os.environ["SPICE_MUTANT"] = str(site.id)
        try:
            got.append(_run(schema, "head", [1, 2, 3, 4], 2))
        finally:
            del os.environ["SPICE_MUTANT"]
    assert _run(schema, "head", [1, 2, 3, 4], 2) == [1, 2]
    assert got == [[1, 2, 3], [1]]


def test_a_flag_default_is_flipped_by_the_constant_operator() -> None:
    source = "def f(x, strict=True):\n    return x\n"
    assert [s.change for s in mutants.find_sites(source, {1})] == ["`True` → `False`"]


def test_messages_are_never_mutated_nor_their_arguments_removed() -> None:
    source = (
        "def f(x):\n    if x < 0:\n        raise ValueError(\n"
        '            f"bad {x}",\n            code=3,\n        )\n'
        '    log.warning("x is %s", x, stacklevel=2)\n    return x\n'
    )
    sites = mutants.find_sites(source, {3, 4, 5, 6, 7})
    # Raising at all still matters (its removal is a mutant); what it says does not.
    assert [(s.operator, s.line) for s in sites] == [("statement removed", 3)]


BEFORE = "def f(x, n):\n    y = x + n  # add\n    return y\n\n\ndef g(x):\n    return x\n"


def test_a_trailing_comment_holds_no_mutant_and_is_no_untested_part() -> None:
    after = BEFORE.replace("  # add", "  # add the offset").replace("return x\n", "return -x\n")
    patch = _patch("m.py", BEFORE, after)
    assert changed_lines(patch) == {"m.py": {7}}  # not line 2: only its comment changed
    got = parts(patch)
    assert [(p.hunk, p.comments_only) for p in got] == [(1, True), (2, False)]
    gone = BEFORE.replace("  # add", "")  # a comment removed (no token written): none either
    assert changed_lines(_patch("m.py", BEFORE, gone)) == {}
    # In the C family too, and a `//` inside a string is no comment.
    go = 'x := a + b // sum\ns := "http://x"\n'
    patch = _patch("a.go", go, go.replace("// sum", "// the sum").replace('x"', 'y"'))
    assert changed_lines(patch, lambda p: True) == {"a.go": {2}}


def test_other_languages_lose_a_method_call_too_never_a_statement_or_selfs() -> None:
    cases = {
        "javascript": (
            "let y = x.slice().trim();\nfoo.bar();\nlet s = `${d.toString()}` + n.toString();\n",
            ["x.trim()", "x.slice()"],
        ),
        "java": (
            'class A { int f() { this.g(); h("/" + p.toString()); return x.copy().size(); } }',
            ["x.size()", "x.copy()"],  # `+` with a string calls `p.toString()` anyway
        ),
        "go": ("package a\n\nfunc f() { y := x.Clone(); x.Reset() }\n", ["y := x;"]),
        "rust": ("fn f() { let y = v.clone(); }\n", ["let y = v;"]),
    }
    for grammar, (source, kept) in cases.items():
        sites = syntax_mutants.find_sites(source, {1, 2, 3}, grammar)
        removed = [s for s in sites if s.operator == "method call removed"]
        written = [syntax_mutants.mutant_source(source, s, grammar) or "" for s in removed]
        assert len(written) == len(kept), (grammar, written)
        assert all(k in w for k, w in zip(kept, written, strict=True)), (grammar, written)


def test_a_negative_constant_is_said_with_its_sign_so_two_on_a_line_are_told_apart() -> None:
    # dayjs-1023's `(c ? -1 : 1)`: both were "`1` → `2`", one judgement for two wrong fixes.
    source = "const k = f(c ? -1 : 1)\n"
    sites = syntax_mutants.find_sites(source, {1}, "javascript")
    assert [s.change for s in sites] == ["`-1` → `-2`", "`1` → `2`"]
    assert "f(c ? -2 : 1)" in (syntax_mutants.mutant_source(source, sites[0], "javascript") or "")


def test_two_mutants_written_alike_on_one_line_each_say_which_they_are() -> None:
    # sympy-17821's `Dummy('k', integer=True, nonnegative=True)`: one `True` → `False` leaves the
    # sum alike, the other makes its `doit()` raise; one judgement could not name both.
    fix = "def f(g):\n    return g('k', integer=True, nonnegative=True)\n"
    said = [c.site.change for c in choose({"a.py": fix}, {"a.py": {2}}, 30).chosen]
    flips = [c for c in said if c.startswith("`True` → `False`")]
    assert flips == [
        "`True` → `False` (1st of 2 on its line)",
        "`True` → `False` (2nd of 2 on its line)",
    ]
    assert "`'k'` → `'XXkXX'`" in said  # alone of its kind: said as before
    choice = choose({}, {}, 30)
    before, after = (
        "package a\n\nfunc f() { g() }\n",
        "package a\n\nfunc f() { g(true, true, false) }\n",
    )
    written = new_tokens(_patch("a.go", before, after), lambda path: True)
    _add_syntax(choice, {"a.go": after}, ({"a.go": {3}}, written), "go", 30, 0)
    go = [c.site.change for c in choice.chosen]
    assert "`false` → `true`" in go  # alone of its kind
    assert "`true` → `false` (1st of 2 on its line)" in go
    assert "`true` → `false` (2nd of 2 on its line)" in go


REWRAPPED = (
    "function week(d) {\n  if (d.day() !== 6 && d.month() === 11) {\n    return 1\n  }\n}\n",
    "function week(d, weekStart) {\n  if (\n    weekStart === 0 &&\n    d.day() !== 6 &&\n"
    "    d.month() === 11\n  ) {\n    return 1\n  }\n}\n",
)
"""dayjs-658, cut down: one conjunct added, the old ones moved onto lines of their own."""


def test_other_languages_mutate_only_what_the_fix_writes_not_what_it_moves() -> None:
    before, after = REWRAPPED
    patch, every = _patch("w.js", before, after), lambda path: True
    lines = changed_lines(patch, every)["w.js"]
    assert {4, 5} <= lines  # the moved conjuncts' lines count as changed
    moved = syntax_mutants.find_sites(after, lines, "javascript")
    assert "`6` → `7`" in [s.change for s in moved]
    written = new_tokens(patch, every)["w.js"]
    sites = syntax_mutants.find_sites(after, lines, "javascript", written)
    assert [s.change for s in sites] == [
        "`=== 0` → `!== 0`",
        "`0` → `1`",
        "`&& d.day() !== 6` → `|| d.day() !== 6`",  # the `&&` written after the new conjunct
    ]


def test_a_language_says_which_calls_only_copy_and_makes_no_mutant_without_them() -> None:
    # ripgrep-2209's `range.clone()` → `range`: it builds only where `range` is not used again.
    source = "fn f(r: Range<usize>) { g(r.clone()); let n = v.len(); }\n"
    copying = copying_calls(languages()["rust"])
    sites = syntax_mutants.find_sites(source, {1}, "rust", copying=copying)
    assert [s.change for s in sites] == ["`g(r.clone());` removed", "`v.len()` → `v`"]
    assert copying_calls(languages()["javascript"]) == frozenset()  # dayjs-1023's clone() is not


MACRO_C = (
    "#define BINOPS(X) X(plus) X(minus)\n"
    "BINOPS(LIBM_DD)\n"
    "static int f(int n) {\n  if (n == -1) return 0;\n  return n;\n}\n"
)
"""jq's builtin.c, cut down: a macro tree-sitter cannot expand leaves the file with an error."""


def test_a_file_that_never_parses_whole_still_gets_mutants_unless_one_adds_an_error() -> None:
    # Before: every mutant of jq's and fmt's files was dropped as "does not parse" (no_mutants).
    for grammar in ("c", "cpp"):
        assert syntax_mutants._parser(grammar).parse(MACRO_C.encode()).root_node.has_error
        sites = syntax_mutants.find_sites(MACRO_C, {4}, grammar)
        assert sites[0].change == "`== -1` → `!= -1`"
        assert "if (n != -1)" in (syntax_mutants.mutant_source(MACRO_C, sites[0], grammar) or "")
        broken = dataclasses.replace(sites[0], replacement=b"== (")  # an error of its own
        assert syntax_mutants.mutant_source(MACRO_C, broken, grammar) is None


def test_a_tuple_field_is_no_constant_to_move() -> None:
    # ripgrep-2295's `self.0.dir.as_path()`: `self.1` is another field (a mutant that only
    # fails to build), not the constant `0` moved by one.
    source = "fn f(s: &S) -> usize { s.0.dir.len() + 1 }\n"
    sites = syntax_mutants.find_sites(source, {1}, "rust")
    assert [s.change for s in sites] == [
        "`s.0.dir.len()` → `s.0.dir`",
        "`+ 1` → `- 1`",
        "`1` → `2`",
    ]


def test_a_removed_method_call_is_chosen_after_every_other_kind() -> None:
    # A typed language's removed call most often does not build: the limit cuts it first.
    from spice_engine.strength.candidates import _add_syntax
    from spice_engine.strength.choose import Choice

    source = "fn f(v: &Vec<u8>) -> usize {\n    let n = v.len();\n    n + 1\n}\n"
    lines = {"src/lib.rs": {2, 3}}
    # The fix wrote both lines: every character of them a token of its own.
    written = {"src/lib.rs": [(n, c, c + 1) for n in (2, 3) for c in range(24)]}
    chosen = {}
    for limit in (1, 9):
        choice = Choice([], 0, [], {}, {})
        _add_syntax(choice, {"src/lib.rs": source}, (lines, written), "rust", limit, 0)
        chosen[limit] = [c.site.operator for c in choice.chosen]
    assert len(chosen[9]) > 1 and chosen[9][-1] == "method call removed"
    assert "method call removed" not in chosen[9][:-1] and chosen[1] == chosen[9][:1]


def test_other_languages_lose_a_statement_of_the_fix_never_a_log_line_or_a_panic() -> None:
    # go-zero-1964, -2363: fixes whose only new code is calls and assignments gave `no_mutants`.
    cases = {
        "go": (
            "package a\n\nfunc f() {\n\tsort.Strings(routes)\n\tr = r.WithContext(ctx)\n"
            '\tlog.Printf("x")\n\tpanic(err)\n\tx := g()\n\ti++\n}\n',
            ["`sort.Strings(routes)` removed", "`r = r.WithContext(ctx)` removed", "`i++` removed"],
        ),
        "javascript": (
            "function f() {\n  foo.bar();\n  console.warn('a');\n  a;\n}\n",
            ["`foo.bar();` removed"],
        ),
        "rust": (
            'fn f() {\n    v.push(1);\n    warn!("x");\n    if a { b(); }\n    let y = 2;\n}\n',
            ["`v.push(1);` removed", "`b();` removed"],
        ),
        "java": (
            'class A { void f() {\n this.g();\n LOG.debug("x");\n} }\n',
            ["`this.g();` removed"],
        ),
        "c": (
            "int f() {\n  g(1,\n    2);\n  x += 2;\n  return x;\n}\n",
            ["`g(1,…` removed", "`x += 2;` removed"],
        ),
    }
    for grammar, (source, removed) in cases.items():
        sites = syntax_mutants.find_sites(source, set(range(1, 12)), grammar)
        statements = [s for s in sites if s.operator == syntax_mutants.STATEMENT]
        assert [s.change for s in statements] == removed, grammar
        for site in statements:  # blank lines in their place: every later line keeps its number
            written = syntax_mutants.mutant_source(source, site, grammar) or ""
            assert written.count("\n") == source.count("\n"), (grammar, written)
            assert site.change.strip("`").split("`")[0].rstrip("…") not in written


def test_a_removed_statement_comes_after_changed_values_and_before_removed_calls() -> None:
    from spice_engine.strength.candidates import _add_syntax
    from spice_engine.strength.choose import Choice

    source = "package a\n\nfunc f() int {\n\tx.Reset()\n\ty := a.Clone().N\n\treturn y + 1\n}\n"
    lines = {"a.go": {4, 5, 6}}
    written = {"a.go": [(n, c, c + 1) for n in (4, 5, 6) for c in range(24)]}
    choice = Choice([], 0, [], {}, {})
    _add_syntax(choice, {"a.go": source}, (lines, written), "go", 9, 0)
    operators = [c.site.operator for c in choice.chosen]
    assert operators[-2:] == ["statement removed", "method call removed"], operators
    assert {"arithmetic", "constant"} <= set(operators[:-2])


def test_a_statement_the_fix_only_rewrote_is_not_removed() -> None:
    # go-zero-2032: `logx.Close()` → `_ = logx.Close()` for a linter; removing it forgets no
    # step of the fix. A new value assigned (`r = r.WithContext(ctx)`) still is removed.
    before = "package a\n\nfunc f() {\n\tlogx.Close()\n}\n"
    after = "package a\n\nfunc f() {\n\t_ = logx.Close()\n\tr = r.WithContext(ctx)\n}\n"
    patch, every = _patch("a.go", before, after), lambda path: True
    lines = changed_lines(patch, every)["a.go"]
    sites = syntax_mutants.find_sites(after, lines, "go", new_tokens(patch, every)["a.go"])
    assert [s.change for s in sites] == ["`r = r.WithContext(ctx)` removed"]

"""No mutant of a message's text in the languages tree-sitter reads, as in Python: go-zero-1783's
`fmt.Errorf("… %q", fullName, v.String())` → `v` survived and was shown, though `%q` formats a
`json.Number` through `String()` anyway. The fix comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from spice_engine.strength import syntax_mutants
from tests.strength_sites_support import fix_sites

BUG = """package mapping

func fill(v Number, out *uint64) error {
\tn, _ := v.Int64()
\t*out = uint64(n)
\treturn nil
}
"""
FIX = """package mapping

func fill(v Number, out *uint64) error {
\tn, _ := v.Int64()
\tif n < 0 {
\t\tlogx.Errorf("negative %d", n+1)
\t\treturn fmt.Errorf("bad value %q", v.String())
\t}
\tif n > 1<<40 {
\t\tgetLogger(ctx).Errorf("big %d", n+1)
\t\tpanic(errors.New("too big: " + v.String()))
\t}
\t*out = uint64(n)
\treturn nil
}
"""
"""go-zero-1783, cut down: a negative value refused with an error that names it; a log call
of the package `logx`, and one on a logger a call returns (a logging library's own writing)."""


def test_the_text_of_an_error_a_panic_or_a_log_call_is_never_mutated(tmp_path: Path) -> None:
    assert fix_sites(tmp_path, "core/mapping/fill.go", (BUG, FIX), "go") == [
        "5 `< 0` → `<= 0`",  # raising at all still matters
        "5 `0` → `1`",
        "9 `> 1<<40` → `>= 1<<40`",
        "9 `1` → `2`",
        "9 `40` → `41`",
        # A logger a call returns: a logging library's own product, its line removed included.
        '10 `getLogger(ctx).Errorf("big %d", n+1)` removed',
        "10 `+ 1` → `- 1`",
        "10 `1` → `2`",
    ]


def test_what_is_thrown_or_logged_keeps_its_kind_and_its_condition(tmp_path: Path) -> None:
    bug = "class A {\n  int f(int n) {\n    return n;\n  }\n}\n"
    fix = (
        'class A {\n  int f(int n) {\n    if (n < 0) {\n      LOG.warn("n=" + (n + 1));\n'
        '      throw new IllegalArgumentException("n=" + (n - 1));\n    }\n    return n;\n'
        "  }\n}\n"
    )
    assert fix_sites(tmp_path, "src/A.java", (bug, fix), "java") == [
        "3 `< 0` → `<= 0`",
        "3 `0` → `1`",
    ]
    rust = (
        'fn f(n: i64) -> i64 {\n    if n < 0 {\n        panic!("n={}", n + 1);\n    }\n    n\n}\n'
    )
    bug = "fn f(n: i64) -> i64 {\n    n\n}\n"
    assert fix_sites(tmp_path / "r", "src/lib.rs", (bug, rust), "rust") == [
        "2 `< 0` → `<= 0`",
        "2 `0` → `1`",
    ]


def test_a_condition_that_only_picks_what_is_logged_keeps_no_mutant() -> None:
    # go-zero-2116's `if duration > slowThreshold.Load() { logger.Slowf(…) } else {
    # logger.Infof(…) }`: the bound only picks the level of a log line.
    cases = {
        "go": (
            'package a\n\nfunc f() {\n\tif d > slow.Load() {\n\t\tlogger.Slowf("s")\n\t} else if x {\n'
            '\t\tlog.Println(1)\n\t} else {\n\t\tlogger.Infof("i")\n\t}\n'
            '\tif d > 2 {\n\t\tlogger.Slowf("s")\n\t\tn++\n\t}\n}\n',
            ["11 `> 2` → `>= 2`", "11 `2` → `3`", "13 `n++` removed"],
        ),
        "rust": (
            'fn f() {\n    if d > t { warn!("x"); } else { info!("y") }\n    if a > 1 { b(); }\n}\n',
            ["3 `> 1` → `>= 1`", "3 `1` → `2`", "3 `b();` removed"],
        ),
        "javascript": (
            "function f() {\n  if (d > t) console.warn('x'); else { console.log(1); }\n"
            "  if (d > 3) { return 1; }\n}\n",
            ["3 `> 3` → `>= 3`", "3 `3` → `4`", "3 `1` → `2`"],
        ),
    }
    for grammar, (source, kept) in cases.items():
        sites = syntax_mutants.find_sites(source, set(range(1, 16)), grammar)
        assert [f"{s.line} {s.change}" for s in sites] == kept, grammar


def test_a_message_on_stderr_and_a_release_are_never_removed_nor_their_text_mutated() -> None:
    # jq-3165: `fprintf(stderr, "… %s", name)`, `fclose(fp)`, `jv_free(data)` removed were
    # shown as wrong fixes: a lost message and leaks no test of behaviour sees.
    source = (
        'int f() {\n  fprintf(stderr, "x %d", 1);\n  fclose(fp);\n  jv_free(data);\n'
        '  free(p);\n  fprintf(out, "y");\n  g(1);\n  perror("z");\n}\n'
    )
    sites = syntax_mutants.find_sites(source, set(range(1, 10)), "c")
    assert [f"{s.line} {s.change}" for s in sites] == [
        '6 `fprintf(out, "y");` removed',  # another stream: what the program writes
        "7 `g(1);` removed",
        "7 `1` → `2`",
    ]
    rust = "fn f() {\n    drop(x);\n    v.push(1);\n}\n"
    sites = syntax_mutants.find_sites(rust, {2, 3}, "rust")
    assert [f"{s.line} {s.change}" for s in sites] == ["3 `v.push(1);` removed", "3 `1` → `2`"]


LINK_BUG = """package util

func isLink(name string) (bool, error) {
\treturn false, nil
}
"""
LINK_FIX = """package util

func isLink(name string) (bool, error) {
\tfi, err := os.Lstat(name)
\tif err != nil {
\t\treturn false, err
\t}
\tif len(name) > 9 {
\t\treturn true, fmt.Errorf("long %d", len(name))
\t}
\tok, err := check(name)
\tif ok {
\t\treturn false, err
\t}
\tfor err != nil {
\t\treturn true, err
\t}
\treturn fi.Mode()&fs.ModeSymlink != 0, nil
}
"""
"""go-zero-990's `isLink`, grown: a flag beside the error just tested, beside one built, and
beside one that may be nil."""


def test_a_zero_value_returned_beside_a_go_error_is_not_mutated(tmp_path: Path) -> None:
    """A caller given an error reads nothing else the call returned: `false` → `true` beside
    the tested `err` or a built error is no mutant. Beside an `err` no `if err != nil` has
    tested (`if ok`, a loop), the flag is what the caller gets, and stays mutable."""
    assert fix_sites(tmp_path, "tools/util/path.go", (LINK_BUG, LINK_FIX), "go") == [
        "5 `!= nil` → `== nil`",  # whether the error is returned still matters
        "8 `> 9` → `>= 9`",
        "8 `9` → `10`",
        "13 `false` → `true`",  # `err` untested here: nil when `check` went well
        "15 `!= nil` → `== nil`",
        "16 `true` → `false`",  # in a loop, not an `if`'s body
        "18 `fi.Mode()` → `fi`",
        "18 `!= 0` → `== 0`",
        "18 `0` → `1`",
    ]


PAD_BUG = """class P {
  int read(Variant b, int ch) {
    if (b.usesPadding()) {
      return -1;
    }
    return ch;
  }
}
"""


def test_a_method_call_read_as_a_truth_value_is_negated_not_removed(tmp_path: Path) -> None:
    """jackson-core-922 wrote `b.requiresPaddingOnRead()` in four conditions: `x.m()` → `x`
    never builds where a condition takes only a truth value (twelve such mutants, none built).
    The check inverted is the wrong fix tried there; JavaScript, where any value is tested for
    truth, keeps the receiver in place of the call."""
    fix = PAD_BUG.replace("b.usesPadding()", "b.requiresPaddingOnRead() && ch > 0")
    assert fix_sites(tmp_path / "java", "src/P.java", (PAD_BUG, fix), "java") == [
        "3 `b.requiresPaddingOnRead()` → `!b.requiresPaddingOnRead()`",
        "3 `&& ch > 0` → `|| ch > 0`",
        "3 `> 0` → `>= 0`",
        "3 `0` → `1`",
    ]
    go_bug = "package p\n\nfunc f(b V) int {\n\tif b.Pads() {\n\t\treturn 1\n\t}\n\treturn 0\n}\n"
    go_fix = go_bug.replace("b.Pads()", "b.Requires()")
    assert fix_sites(tmp_path / "go", "p/f.go", (go_bug, go_fix), "go") == [
        "4 `b.Requires()` → `!b.Requires()`"
    ]
    js_bug = "function f(b) {\n  if (b.pads()) {\n    return 1;\n  }\n  return 0;\n}\n"
    js_fix = js_bug.replace("b.pads()", "b.requires()")
    assert fix_sites(tmp_path / "js", "src/f.js", (js_bug, js_fix), "javascript") == [
        "2 `b.requires()` → `b`"
    ]

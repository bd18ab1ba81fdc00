"""A call left out through a parameter, the code a caller gave (spice_engine.strength
.parameter_calls): shown on its line's run, where a statement left out is otherwise held; not
traced when captured from a function around (no walk sees it)."""

from __future__ import annotations

from pathlib import Path

from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.parameter_calls import Called, called_parameter
from tests.test_strength_line_probe import _measured

GO = """package h

func Tracing(name string, next Handler) Handler {
	return func(w *Writer, r string) {
		defer func() {
			next(w, r)
		}()
		logx.Close()
		w.Put(name)
	}
}

func Own(next Handler) { next(nil, "") }
"""


def test_a_call_through_a_parameter_is_found_and_whether_it_was_captured() -> None:
    def at(source: str, grammar: str, word: str) -> Called | None:
        return called_parameter(grammar, source, source.index(word))

    assert at(GO, "go", "next(w, r)") == Called("next", captured=True)
    assert at(GO, "go", 'next(nil, "")') == Called("next", captured=False)
    assert at(GO, "go", "w.Put") == Called("w", captured=False)
    assert at(GO, "go", "logx.Close") is None  # a package's function
    java = "class A { void m(Runnable cb) { xs.forEach(x -> { cb.run(); this.f(); g(); }); } }"
    assert at(java, "java", "cb.run") == Called("cb", captured=True)
    assert at(java, "java", "this.f") is None and at(java, "java", "g()") is None
    rust = "fn f(cb: impl Fn(u8), v: Vec<u8>) { v.iter().for_each(|x| { cb(*x); self.g(); }); }"
    assert at(rust, "rust", "cb(*x)") == Called("cb", captured=True)
    assert at(rust, "rust", "self.g") is None
    c = "static void each(void (*fn)(int), int n) { for (int i = 0; i < n; i++) fn(i); }"
    assert at(c, "c", "fn(i)") == Called("fn", captured=False)
    # A parameter named only inside a type (`func(x int)`) binds nothing; a receiver is none.
    typed = "package h\nfunc (s *S) F(f func(x int)) func() {\n\treturn func() { x(1); s.g() }\n}\n"
    assert at(typed, "go", "x(1)") is None and at(typed, "go", "s.g()") is None


BASE = (
    "package mathx\n\ntype Writer struct{ Lines []string }\n\ntype Handler func(*Writer, string)\n\n"
    "func Wrap(name string, next Handler) Handler {\n\treturn next\n}\n"
)
FIX = (
    "package mathx\n\ntype Writer struct{ Lines []string }\n\ntype Handler func(*Writer, string)\n\n"
    "func Wrap(name string, next Handler) Handler {\n"
    "\treturn func(w *Writer, r string) {\n"
    "\t\tdefer func() {\n"
    "\t\t\tnext(w, r)\n"
    "\t\t}()\n"
    "\t\tw.Lines = append(w.Lines, name)\n"
    "\t}\n"
    "}\n"
)
TEST = (
    'package mathx\n\nimport "testing"\n\nfunc TestWrap(t *testing.T) {\n'
    "\tw := &Writer{}\n"
    '\tWrap("span", func(*Writer, string) {})(w, "/")\n'
    '\tif len(w.Lines) != 1 || w.Lines[0] != "span" {\n\t\tt.Fatal(w.Lines)\n\t}\n}\n'
)


def test_a_handler_never_called_is_shown_though_its_closure_answers_alike(tmp_path: Path) -> None:
    """The test's `next` does nothing, so leaving out `next(w, r)` changes nothing the trace of
    the deferred closure (given nothing, returning nothing) could see: the call is not traced,
    and the line probe's word stands — the line runs, the tests pass without it: shown."""
    got = _measured(
        tmp_path,
        "wrap",
        (FIX, TEST),
        "example.com/c/mathx::TestWrap",
        StrengthConfig(max_mutants=20),
        base=BASE,
    )
    removed = [m for m in got.survivors if m.change == "`next(w, r)` removed"]
    assert removed, [(m.line, m.change, m.verdict) for m in got.survivors]
    assert removed[0].shown and removed[0].reached == "executed_unchecked", removed[0]
    assert "through `next`, which its caller gave it" in removed[0].reason, removed[0].reason
    assert not removed[0].unconfirmed and removed[0].through == "next"
    assert got.headline == removed[0]  # the example a reviewer is shown: the handler skipped

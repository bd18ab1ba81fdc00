"""Where a compiled language's check knows a line's code (`code_misses`), and the digest a
code command prints: without running a compiler."""

from __future__ import annotations

from spice_engine.langs import languages
from spice_engine.langs.capabilities import compiled_code
from spice_engine.langs.compiled_code import MARK, read_digest

GO = """package calc

const Limit = 3

func Add(a, b int) int {
\treturn a + b
}

func Keep[T any](x T) T {
\treturn x
}

func (s *Stack[T]) Push(x T) {
\ts.items = append(s.items, x)
}
"""

RUST = """pub fn add(a: i64, b: i64) -> i64 {
    a + b
}

pub fn keep<T: Clone>(x: &T) -> T {
    x.clone()
}

#[inline]
pub fn small(a: u8) -> u8 {
    a + 1
}

impl<'a> Holder<'a> {
    pub fn len(&self) -> usize {
        self.items.len()
    }
}

pub trait Sized2 {
    fn two(&self) -> u8 {
        2
    }
}

#[cfg(test)]
mod tests {
    fn helper() -> u8 {
        1
    }
}

pub fn takes(f: impl Fn() -> u8) -> u8 {
    f()
}
"""

C = """int add(int a, int b) {
    return a + b;
}

#ifdef FAST
int fast(int a) {
    return a * 2;
}
#endif

#if !defined alloca
# ifdef __cplusplus
extern "C"
# endif
void *alloca (size_t);
#endif

int after(int a) {
    return a - 3;
}
"""
"""After the autoconf idiom declaring `alloca` (`extern "C"` under its own `#ifdef`, as jq's
builtin.c has it), tree-sitter nests the rest of the file inside the condition: the directives
say `after` is outside."""


def _line(source: str, text: str) -> int:
    return source[: source.index(text)].count("\n") + 1


def _misses(language: str, source: str, text: str) -> str | None:
    found = compiled_code(languages()[language])
    assert found is not None
    return found.code_misses(source, _line(source, text))


def test_go_knows_a_plain_functions_lines_only() -> None:
    assert _misses("go", GO, "return a + b") is None
    assert "function's body" in str(_misses("go", GO, "const Limit"))
    assert "generic" in str(_misses("go", GO, "return x"))
    assert "generic type" in str(_misses("go", GO, "s.items = append"))


def test_rust_knows_what_its_crate_compiles_for_itself() -> None:
    assert _misses("rust", RUST, "a + b") is None
    assert _misses("rust", RUST, "self.items.len()") is None  # lifetimes are no generics
    assert "generic" in str(_misses("rust", RUST, "x.clone()"))
    assert "inline" in str(_misses("rust", RUST, "a + 1"))
    assert "trait item" in str(_misses("rust", RUST, "        2"))
    assert "cfg" in str(_misses("rust", RUST, "        1"))
    assert "generic" in str(_misses("rust", RUST, "    f()"))


def test_c_leaves_lines_under_a_preprocessor_condition() -> None:
    assert _misses("c", C, "return a + b") is None
    assert "preprocessor" in str(_misses("c", C, "return a * 2"))
    assert _misses("cpp", C, "return a + b") is None
    assert _misses("c", C, "return a - 3") is None
    assert "preprocessor" in str(_misses("c", C, "void *alloca"))


def test_languages_without_a_compiler_offer_no_check() -> None:
    # JavaScript has none (what a minifier folds is not what the engine runs); Python's own
    # proof compares bytecode before any run (spice_engine.strength.equivalence).
    offered = {name for name, lang in languages().items() if compiled_code(lang) is not None}
    assert offered == {"c", "cpp", "go", "java", "rust"}


def test_a_digest_is_one_line_of_the_channel_and_nothing_else() -> None:
    digest = "a" * 64
    assert read_digest(f"noise\n{MARK}{digest}\n") == digest
    assert read_digest(f"{MARK}{digest}\n{MARK}{digest}\n") is None  # two: not one unit's
    assert read_digest(f"{MARK}not-a-digest\n") is None
    assert read_digest("") is None


def test_headers_and_test_files_are_no_unit() -> None:
    from spice_engine.langs.base import Plan, Toolchain
    from tests.lang_projects import DictFiles

    files = DictFiles({"CMakeLists.txt": "", "calc.c": "", "calc.h": "", "go.mod": "module x"})
    c = compiled_code(languages()["c"])
    go = compiled_code(languages()["go"])
    assert c is not None and go is not None
    empty = Plan(language="c", toolchain=Toolchain(name="gcc"), key=())
    assert c.code_command(files, "calc.h", empty) is None
    assert c.code_command(files, "calc.c", empty) is not None
    assert go.code_command(files, "x_test.go", empty) is None


class _OutOfTime:
    """A runner with no time left (only what `same_code` asks of one before compiling)."""

    def __init__(self, language: str) -> None:
        from types import SimpleNamespace

        self.session = SimpleNamespace(language=languages()[language])

    def left(self) -> float:
        return 0.0


def test_a_survivor_the_budget_leaves_unchecked_stays_a_survivor() -> None:
    from typing import cast

    from spice_engine.strength.choose import Choice, Chosen
    from spice_engine.strength.result import MutantOutcome, Verdict
    from spice_engine.strength.runs import Runner
    from spice_engine.strength.same_code import same_code
    from spice_engine.strength.sites import Site
    from spice_engine.strength.verdicts import Verdicts

    survivor = MutantOutcome(path="a.go", line=5, operator="o", change="c", diff="", run="process")
    verdicts = Verdicts(judged=("t",), done={1: survivor})
    site = Site(1, 5, "o", "c", "Add", switchable=False)
    choice = Choice([Chosen(1, "a.go", site, GO)], 0, [], {"a.go": GO}, {"a.go": {5}})
    after, check, unchecked = same_code(cast(Runner, _OutOfTime("go")), verdicts, choice)
    assert after.done[1].verdict == Verdict.SURVIVED and check is not None and unchecked == 1
    after, check, unchecked = same_code(cast(Runner, _OutOfTime("javascript")), verdicts, choice)
    assert after == verdicts and check is None and unchecked == 0

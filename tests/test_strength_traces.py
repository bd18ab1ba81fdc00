"""The differential run of compiled Go (spice_engine.langs.go_trace, spice_engine.strength
.traces, spice_engine.strength.traced): the survivors' functions write down the tests' calls,
and a survivor is shown when it answers one of them otherwise, held when it answers all alike."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest

from spice_engine.langs.go_trace import traced
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.traces import Call, compare, received_alike, recorded
from tests.test_strength_line_probe import _measured

MARK = f"SPICE-TRACE-{secrets.token_hex(6)}"
HOSTILE = 'sh"a{p}e\\s\n\t.x'
"""A file name a tree may hold: what the tracers write of it must stay text in every language."""
"""A mark of this test process's own: the traced code appends to `/tmp/<mark>`."""

SHAPES = """package shapes

import "errors"

type Box struct {
	n    int
	tags map[string]int
	next *Box
}

func Pair[T any](a, b T) []T { return []T{a, b} }

func (bx *Box) Put(k string, _ int) (int, error) {
	if bx.tags == nil {
		bx.tags = map[string]int{}
	}
	bx.tags[k]++
	if k == "" {
		return 0, errors.New("empty")
	}
	return len(bx.tags), nil
}

func (Box) Zero(int, ...string) (n int, _ error) { n = 0; return }

func Sum(xs ...int) func(int) int {
	return func(int) int { s := 0; for _, x := range xs { s += x }; return s }
}

func Boom(x int) int {
	if x > 2 {
		panic("big")
	}
	return x
}
"""
SHAPES_TEST = """package shapes

import "testing"

func TestShapes(t *testing.T) {
	if len(Pair(1, 2)) != 2 {
		t.Fatal("pair")
	}
	b := &Box{}
	b.next = b
	b.Put("a", 1)
	b.Put("", 2)
	Box{}.Zero(1, "x", "y")
	if Sum(1, 2)(0) != 3 {
		t.Fatal("sum")
	}
	func() { defer func() { recover() }(); Boom(5) }()
	if Boom(1) != 1 {
		t.Fatal("boom")
	}
}
"""


def _go() -> str:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    if not Path(go).exists():
        pytest.skip("no Go toolchain on this machine")
    return go


def _run(module: Path, source: str) -> str:
    (module / "shapes.go").write_text(source)
    env = os.environ | {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local"}
    env |= {"GOCACHE": str(module.parent / "cache"), "GOPATH": str(module.parent / "gopath")}
    _ran([_go(), "test", "-json", "-count=1", "."], module, env)
    return _written()


def _ran(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`argv` run on our own fixture (never a tree's code), which must pass."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _written() -> str:
    """What the traced code appended to `/tmp/<MARK>`, taken away."""
    file = Path("/tmp") / MARK
    try:
        return file.read_text()
    finally:
        file.unlink(missing_ok=True)


def _module(tmp_path: Path) -> Path:
    module = tmp_path / "m"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/shapes\n\ngo 1.21\n")
    (module / "shapes_test.go").write_text(SHAPES_TEST)
    return module


def test_every_shape_of_function_is_traced_and_keeps_its_lines(tmp_path: Path) -> None:
    """Generic functions, methods with unnamed or `_` receivers, parameters and results,
    variadic ones, a function literal on one line with its code, a panic recovered by the
    caller: each builds traced, answers as before (the tests pass), and writes its calls."""
    places = ["[]T{a, b}", "bx.tags[k]++", "n = 0", "s += x", 'panic("big")']
    got = traced(SHAPES, [SHAPES.encode().index(p.encode()) for p in places], HOSTILE, MARK)
    assert got is not None
    text, ids = got
    assert len(ids) == len(places) and len(set(ids)) == len(places)
    for place in [*places, "func Boom", "return len(bx.tags), nil"]:  # every line kept
        assert _line_of(text, place) == _line_of(SHAPES, place), place
    module = _module(tmp_path)
    calls = recorded(_run(module, text), MARK).calls
    assert {i: len(calls.get(i, [])) for i in ids} == dict(zip(ids, [1, 2, 1, 1, 2], strict=True))
    boom = calls[ids[4]]
    assert boom[0].returned != boom[1].returned  # the panic is an answer, and it was raised
    again = recorded(_run(module, text), MARK).calls
    assert again == calls, "no address nor map order in what is written: two runs agree"


def _line_of(text: str, part: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if part in line)


def test_a_byte_in_no_function_is_not_traced() -> None:
    assert traced(SHAPES, [SHAPES.index("n    int")], "shapes.go", MARK) is None
    assert traced("func F() {}\n", [5], "f.go", MARK) is None  # no package clause


def test_the_marks_lines_are_read_from_go_tests_json_and_from_plain_output() -> None:
    line = "\t".join([MARK, "f.go:3:1", "e", "E", "r", "R", "l", "L"])
    event = {"Action": "output", "Test": "TestX", "Output": line + "\n"}
    output = json.dumps(event) + "\n" + line + "\n" + line[:-4] + "\nnoise\n"
    entered = "\t".join([MARK, "g.go:9:1", "entered"])
    got = recorded(output + entered + "\n", MARK)
    assert got.calls == {"f.go:3:1": [Call("e", "E", "r", "R", "l", "L")] * 2}
    assert got.entered == {"f.go:3:1", "g.go:9:1"}  # g was called and never returned
    assert recorded(output, "SPICE-TRACE-other").calls == {}


def _call(entry: str, returned: str, left: str = "s") -> Call:
    masked = [v.replace("1", "#").replace("2", "#") for v in (entry, returned, left)]
    return Call(entry, masked[0], returned, masked[1], left, masked[2])


def test_a_survivor_differs_only_on_an_input_both_fix_runs_answer_alike() -> None:
    fix = [_call("a", "x"), _call("b", "t1")]
    again = [_call("a", "x"), _call("b", "t2")]  # `b`'s answer is a time: unstable
    assert compare(fix, again, [_call("a", "x"), _call("b", "t3")]).differs is False
    seen = compare(fix, again, [_call("a", "y")])
    assert seen.differs and seen.where == "returned" and seen.calls == 1
    stored = compare(fix, again, [_call("a", "x", left="other")])
    assert stored.differs and stored.where == "stored"


def test_where_nothing_is_stable_exactly_the_masked_answers_are_compared() -> None:
    fix, again = [_call("k1", "v1")], [_call("k2", "v2")]  # a timestamp in the receiver
    assert compare(fix, again, [_call("k1", "v1")]).differs is False
    assert compare(fix, again, [_call("k1", "w1")]).differs is True
    assert compare(fix, again, [_call("k1", "v2")]).differs is False  # only a number moved


def test_no_call_under_the_fix_or_the_survivor_says_nothing() -> None:
    assert compare([], [], [_call("a", "x")]).differs is None
    none = compare([_call("a", "x")], [_call("a", "x")], [])
    assert none.differs is None and "no call" in none.why


DESCRIBE_BASE = 'package mathx\n\nfunc Describe(x int) (string, int) {\n\treturn "", 0\n}\n'
DESCRIBE = (
    "package mathx\n\ntype Tally struct {\n\tSeen int\n\tLast int\n}\n\n"
    'func Describe(x int) (string, int) {\n\tif x > 3 {\n\t\treturn "big", x * 2\n\t}\n'
    '\treturn "small", x\n}\n\n'
    "func (t *Tally) Add(x int) bool {\n\tt.Seen++\n\tt.Last = x + 1\n\treturn x > 0\n}\n"
    "\nfunc Count(xs []int) int {\n\tverbose := false\n\tn := 0\n\tfor _, x := range xs {\n"
    '\t\tn += x\n\t}\n\tif verbose {\n\t\tprintln("count", n)\n\t}\n\treturn n\n}\n'
    "\nfunc capped(n int) int {\n\tif n > 10 {\n\t\treturn 20\n\t}\n\treturn n * 2\n}\n"
    "\nfunc Long(s string) bool {\n\treturn capped(len(s)) >= 3\n}\n"
)
DESCRIBE_TEST = (
    'package mathx\n\nimport "testing"\n\nfunc TestDescribe(t *testing.T) {\n'
    '\tif s, _ := Describe(5); s != "big" {\n\t\tt.Fatal(s)\n\t}\n'
    "\tvar tl Tally\n\tif !tl.Add(4) || tl.Seen != 1 {\n\t\tt.Fatal(tl)\n\t}\n"
    '\tif Count([]int{1, 2}) != 3 || !Long("abcd") {\n\t\tt.Fatal("count")\n\t}\n}\n'
)


def test_a_survivor_answering_the_tests_own_call_otherwise_is_shown(tmp_path: Path) -> None:
    """`x * 2` → `x / 2`: `Describe(5)` returns 2, not 10, which the test does not check:
    shown on the tests' own input, in what it returned. `x + 1` → `x - 1` is left in the
    receiver: shown, as what it stored. `verbose := false` → `true` runs and changes nothing a
    caller gets (a line on standard error): held. `capped(4)` returns 12 under `n * 2` →
    `n * 3`, but `Long`, its caller, answers alike: held. `x > 3` → `x >= 3` answers
    `Describe(5)` alike, but only 3 would tell: shown as executed, unchecked, saying so."""
    got = _measured(
        tmp_path,
        "describe",
        (DESCRIBE, DESCRIBE_TEST),
        "example.com/c/mathx::TestDescribe",
        StrengthConfig(max_mutants=30),
        base=DESCRIBE_BASE,
    )
    by_change = {(m.line, m.change): m for m in got.survivors}
    product = by_change.get((10, "`* 2` → `/ 2`"))
    assert product is not None, sorted(by_change)
    assert product.shown and product.difference == "tests" and product.difference_in == "returned"
    last = next(m for (line, _), m in by_change.items() if line == 17)
    assert last.shown and last.difference_in == "stored", last
    bound = by_change.get((9, "`> 3` → `>= 3`"))
    assert bound is not None and bound.shown and bound.difference is None, bound
    # Its traced calls answered alike; its decision probe: no test gives x = 3.
    assert "no judged test makes `x > 3` decide otherwise" in bound.reason, bound.reason
    # `capped(4)` returns 12 under `2` → `3`; `Long`, its caller, answers alike
    unpassed = [m for m in got.survivors if m.function == "capped" and m.line == 37]
    assert unpassed and all(not m.shown for m in unpassed), sorted(by_change)
    assert any("no caller passes on" in m.unconfirmed for m in unpassed), unpassed
    flag = by_change.get((22, "`false` → `true`"))
    assert flag is not None and not flag.shown and "answered each" in flag.unconfirmed, sorted(
        (line, change, m.verdict, m.reason[:60]) for (line, change), m in by_change.items()
    )
    assert got.headline is not None and got.headline.difference == "tests"


RUST = """#![deny(warnings)]
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct Tally {
    seen: usize,
    last: BTreeMap<String, i64>,
}

pub struct Opaque(pub u8);

impl Tally {
    pub fn add(&mut self, k: &str, v: i64) -> Result<usize, String> {
        if k.is_empty() {
            return Err("empty".into());
        }
        self.seen += 1;
        self.last.insert(k.to_string(), v);
        Ok(self.seen)
    }
}

pub fn parse(s: &str) -> Result<i64, std::num::ParseIntError> {
    let n: i64 = s.trim().parse()?;
    Ok(n * 2)
}

pub fn first<'a>(xs: &'a [String]) -> Option<&'a str> { xs.first().map(|s| s.as_str()) }

pub fn generic<T: Clone>(x: T, (a, _b): (u8, u8), _: Opaque, mut m: Vec<u8>) -> T {
    m.push(a);
    x.clone()
}

pub async fn later() -> u8 { 1 }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all() {
        let mut t = Tally::default();
        assert_eq!(t.add("a", 1), Ok(1));
        assert!(t.add("", 1).is_err());
        assert_eq!(parse(" 4 "), Ok(8));
        assert_eq!(first(&["x".to_string()]), Some("x"));
        assert_eq!(generic(Opaque(1).0, (1, 2), Opaque(3), vec![]), 1);
    }
}
"""


def test_rust_functions_are_traced_through_return_and_question_mark(tmp_path: Path) -> None:
    """Methods on `&mut self`, `?` and an early `return`, a borrowed result, a generic one whose
    values need not be `Debug`, destructured and `_` parameters, under `deny(warnings)`: each
    builds traced, answers as before, writes its calls; an `async fn` is not traced."""
    from spice_engine.langs.rust_trace import traced as rust_traced

    cargo = shutil.which("cargo") or "/root/.cargo/bin/cargo"
    if not os.access(cargo, os.X_OK):
        pytest.skip("no cargo on this machine")
    places = ["self.seen += 1", "s.trim()", "xs.first()", "m.push(a)"]
    at = [RUST.encode().index(p.encode()) for p in places]
    got = rust_traced(RUST, at, HOSTILE, MARK)
    assert got is not None and len(set(got[1])) == 4
    for place in places:
        assert _line_of(got[0], place) == _line_of(RUST, place), place
    assert rust_traced(RUST, [RUST.index("1 }")], "src/lib.rs", MARK) is None  # async
    crate = tmp_path / "rt"
    (crate / "src").mkdir(parents=True)
    # 2015: no `::core` in the crate root (ripgrep's printer is such a crate)
    (crate / "Cargo.toml").write_text('[package]\nname = "rt"\nversion = "0.1.0"\n')
    (crate / "src/lib.rs").write_text(got[0].replace("pub async fn", "pub fn"))  # 2015
    env = os.environ | {"CARGO_TARGET_DIR": str(tmp_path / "target")}
    env["PATH"] = f"{Path(cargo).parent}:{env.get('PATH', '')}"
    done = _ran([cargo, "test", "--offline", "--lib"], crate, env)
    assert MARK not in done.stdout + done.stderr  # nothing a test could read from a program
    written = recorded(_written(), MARK)
    calls = written.calls
    assert written.entered == set(got[1])
    assert [len(calls.get(i, [])) for i in got[1]] == [2, 1, 1, 1]
    add = calls[got[1][0]]
    assert add[0].returned != add[1].returned  # Ok(1), then the early Err


JAVA = """package a;

import java.util.*;

interface Shape { default int sides(int x) { return x + 1; } }

public class Foo<T> implements Shape {
    private final Map<String, Integer> counts = new HashMap<String, Integer>();
    private Foo<T> self = this;

    @Override
    public int sides(int x) {
        return x * 2;
    }

    public synchronized <U extends Comparable<? super U>> List<U> sorted(
            final List<U> xs, String... tags) throws java.io.IOException {
        if (xs == null) throw new java.io.IOException("none");
        List<U> out = new ArrayList<U>(xs);
        Collections.sort(out);
        counts.put(tags.length > 0 ? tags[0] : "", out.size());
        return out;
    }

    static void fill(int[] xs) {
        for (int i = 0; i < xs.length; i++) xs[i] = i;
    }

    @SuppressWarnings("unchecked") // a comment the stand-in's one line must not keep
    <V> V first(List<V> xs /* the list */) {
        return xs.get(0);
    }

    Foo() { counts.put("new", 0); }

    public static void main(String[] args) throws Exception {
        Foo<String> f = new Foo<String>();
        System.out.println(f.sides(2) + " " + f.sorted(Arrays.asList(3, 1, 2), "t"));
        try { f.sorted(null); } catch (java.io.IOException e) { System.out.println("caught"); }
        int[] a = new int[3]; fill(a); System.out.println(a[2]);
        System.out.println(new Shape() {}.sides(1));
        System.out.println(Other.use(f));
    }
}

class Other {
    static String use(Foo<String> f) { return f.first(Arrays.asList("p")); }
}
"""


def test_java_methods_are_traced_beside_their_overrides_and_throws(tmp_path: Path) -> None:
    """An interface's default method and the override beside it, a generic synchronized method
    with varargs and a checked exception thrown through it, a static void method that fills
    its array, a package-private generic one another class calls (its stand-in keeps its
    access): each builds traced (Java 8 source), prints as before, writes its calls, the same
    twice; a constructor is not traced."""
    from spice_engine.langs.java_trace import traced as java_traced

    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK on this machine")
    places = ["x * 2", "Collections.sort(out)", "xs[i] = i", "x + 1", "xs.get(0)"]
    got = java_traced(JAVA, [JAVA.encode().index(p.encode()) for p in places], HOSTILE, MARK)
    assert got is not None and len(set(got[1])) == 5
    for place in places:
        assert _line_of(got[0], place) == _line_of(JAVA, place), place
    assert java_traced(JAVA, [JAVA.index('"new", 0')], "Foo.java", MARK) is None
    (tmp_path / "a").mkdir()
    (tmp_path / "a/Foo.java").write_text(got[0])
    out = str(tmp_path / "out")
    _ran(
        [javac, "--release", "8", "-d", out, str(tmp_path / "a/Foo.java")], tmp_path, {**os.environ}
    )
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [java, "-cp", str(tmp_path / "out"), "a.Foo"], capture_output=True, text=True
        )
        assert done.stdout == "4 [1, 2, 3]\ncaught\n2\n2\np\n", done.stderr[-2000:]
        runs.append(recorded(_written(), MARK).calls)
    calls = runs[0]
    assert [len(calls.get(i, [])) for i in got[1]] == [1, 2, 1, 1, 1]
    assert runs[0] == runs[1]
    fill = calls[got[1][2]][0]
    assert fill.entry != fill.left  # the array it was given, filled


DAG = """package shapes

type Node struct {
	L    *Node
	Kids map[int]*Node
	N    int
}

func Depth(n *Node) int {
	d := 0
	for ; n != nil; n = n.L {
		d++
	}
	return d
}
"""
DAG_TEST = """package shapes

import "testing"

func TestShapes(t *testing.T) {
	var n *Node
	for i := 0; i < 60; i++ {
		kids := map[int]*Node{}
		for k := 0; k < 20; k++ {
			kids[k] = n // each entry written apart: no cap on the whole walk's text
		}
		n = &Node{L: n, Kids: kids, N: i} // 21 ways to one node: 21^10 paths in 10 steps
	}
	if Depth(n) != 60 {
		t.Fatal("depth")
	}
}
"""


def test_a_value_whose_nodes_are_shared_is_walked_in_bounded_steps(tmp_path: Path) -> None:
    """A walk follows each path to a node (only a cycle on the path is cut), so a graph of
    shared nodes (a parser's caches, gson's factories: its fix's traced run outlived its
    bound) has paths without end: the walk stops after `WALKED` values, the same place in
    each run, and the call is recorded."""
    module = _module(tmp_path)
    (module / "shapes_test.go").write_text(DAG_TEST)
    got = traced(DAG, [DAG.index("d++")], "dag.go", MARK)
    assert got is not None
    first = recorded(_run(module, got[0]), MARK).calls[got[1][0]]
    assert len(first) == 1 and first == recorded(_run(module, got[0]), MARK).calls[got[1][0]]


JAVA_DAG = """package a;

public class Dag {
    Dag l;
    java.util.List<Dag> kids = new java.util.ArrayList<Dag>();
    Dag(Dag below) { l = below; for (int i = 0; i < 20; i++) kids.add(below); }

    static int depth(Dag d) {
        int n = 0;
        for (; d != null; d = d.l) n++;
        return n;
    }

    public static void main(String[] args) {
        Dag d = null;
        for (int i = 0; i < 60; i++) d = new Dag(d);
        System.out.println(depth(d));
    }
}
"""


def test_a_java_value_whose_nodes_are_shared_is_walked_in_bounded_steps(tmp_path: Path) -> None:
    from spice_engine.langs.java_trace import traced as java_traced

    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK on this machine")
    got = java_traced(JAVA_DAG, [JAVA_DAG.index("n++")], "Dag.java", MARK)
    assert got is not None
    (tmp_path / "a").mkdir()
    (tmp_path / "a/Dag.java").write_text(got[0])
    _ran([javac, "--release", "8", "-d", "out", "a/Dag.java"], tmp_path, {**os.environ})
    done = _ran([java, "-cp", "out", "a.Dag"], tmp_path, {**os.environ})
    assert done.stdout == "60\n"
    assert len(recorded(_written(), MARK).calls[got[1][0]]) == 1


VALUES = """package a;

public class Values {
  static int variant;

  static final class Name {
    final String text;
    int cache;
    Name(String text) { this.text = text; }
    @Override public boolean equals(Object o) { return o instanceof Name && ((Name) o).text.equals(text); }
    @Override public int hashCode() { return text.hashCode(); }
    @Override public String toString() { return text; }
  }

  static final class Bag {
    final String text;
    int cache;
    Bag(String text) { this.text = text; }
  }

  static Name name(String s) { Name n = new Name(s); n.cache = variant; return n; }

  static Bag bag(String s) { Bag b = new Bag(s); b.cache = variant; return b; }

  public static void main(String[] args) {
    variant = Integer.parseInt(args[0]);
    System.out.println(name("x") + " " + bag("x").text);
  }
}
"""


def test_a_java_value_whose_class_says_what_equal_means_is_walked_as_it_prints(
    tmp_path: Path,
) -> None:
    """Two runs leave another number in a field outside what `Name.equals` compares: its
    callers see the same name, so `name`'s calls answer alike; `Bag`, with no equality of its
    own, is walked field by field, and `bag`'s answers differ."""
    from spice_engine.langs.java_trace import traced as java_traced

    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK on this machine")
    places = ["n.cache = variant", "b.cache = variant"]
    got = java_traced(VALUES, [VALUES.index(p) for p in places], "Values.java", MARK)
    assert got is not None
    (tmp_path / "a").mkdir()
    (tmp_path / "a/Values.java").write_text(got[0])
    out = str(tmp_path / "out")
    _ran(
        [javac, "--release", "8", "-d", out, str(tmp_path / "a/Values.java")],
        tmp_path,
        {**os.environ},
    )
    runs = []
    for variant in ("0", "1"):
        done = subprocess.run(
            [java, "-cp", out, "a.Values", variant], capture_output=True, text=True
        )
        assert done.stdout == "x x\n", done.stderr[-2000:]
        runs.append(recorded(_written(), MARK).calls)
    name, bag = got[1]
    assert runs[0][name] == runs[1][name]
    assert runs[0][bag] != runs[1][bag]


GOT = """package a;

import java.util.*;

public class Got {
  static int variant;

  static final class Holder {
    final List<String> items = new ArrayList<String>();
    int cache;
    Holder add(String s) { items.add(s); cache = variant; return this; }
    List<String> items() { return items; }
  }

  static long twice(long x) { return 2 * x; }
  static Object pick(Object o) { return "object"; }
  static Object pick(int i) { return "int"; }

  public static void main(String[] args) {
    variant = Integer.parseInt(args[0]);
    List<String> none = Collections.emptyList();
    int n = new Holder().add("a").add("b").items().size();
    System.out.println(n + " " + twice(n) + " " + pick(Integer.valueOf(n).intValue()) + " " + none.size());
    new Holder().add("c");
    for (Iterator<String> it = none.iterator(); it.hasNext(); System.gc()) it.next();
    Runnable r = () -> System.out.println(String.valueOf(Collections.max(Arrays.asList(3, 1))));
    r.run();
  }
}
"""


def test_a_java_test_file_records_what_its_calls_got_back(tmp_path: Path) -> None:
    """Every call whose value the file uses is recorded, chains outer call first, primitives
    kept (`pick(int)` still chosen), a target-typed `emptyList()` still builds; a call standing
    alone is not. The holder's `cache` differs between the variants: `add`'s values differ, the
    list and its size do not."""
    from spice_engine.langs.java_received import received

    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.skip("no JDK on this machine")
    text = received(GOT, HOSTILE, MARK)
    assert text is not None
    assert _line_of(text, "System.out.println(n") == _line_of(GOT, "System.out.println(n")
    (tmp_path / "a").mkdir()
    (tmp_path / "a/Got.java").write_text(text)
    out = str(tmp_path / "out")
    _ran(
        [javac, "--release", "8", "-d", out, str(tmp_path / "a/Got.java")], tmp_path, {**os.environ}
    )
    runs = []
    for variant in ("0", "1", "1"):
        done = subprocess.run([java, "-cp", out, "a.Got", variant], capture_output=True, text=True)
        assert done.stdout == "2 4 int 0\n3\n", done.stderr[-2000:]
        runs.append(recorded(_written(), MARK))
    sites = runs[0].received
    assert all(site.startswith(HOSTILE.encode("unicode_escape").decode()) for site in sites)
    assert len(sites) >= 8, sorted(sites)
    assert sites != runs[1].received
    assert received_alike(runs[1], runs[2], runs[0]) is None
    assert received_alike(runs[1], runs[2], runs[1]) == len(sites)
    size = next(s for s in sites if s.endswith(f":{GOT.index('.size();') + len('.size()')}"))
    assert runs[0].received[size] == runs[1].received[size]

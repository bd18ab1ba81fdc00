"""Only code that can matter is mutated or called untested, and equivalent mutants are proven
so before any run (issue 37): no execution of a repository here."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from spice_engine.strength import mutants, scoped, sources
from spice_engine.strength.callee_messages import set_aside
from spice_engine.strength.choose import choose
from spice_engine.strength.equivalence import same_bytecode, statement_lines
from spice_engine.strength.new_tokens import new_tokens
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.private_renames import set_aside_renames
from spice_engine.strength.relevance import can_matter, inert_lines
from tests.strength_support import CLAMP_FIX
from tests.test_strength_mutants import SOURCE

TYPED = '''from typing import TYPE_CHECKING, Protocol, TypedDict, overload
import logging
import warnings

log = logging.getLogger(__name__)
if TYPE_CHECKING:
    LIMIT: int = 3


class Row(TypedDict):
    size: int


class Sized(Protocol):
    def size(self) -> int: ...


@overload
def grow(n: int) -> int: ...
def grow(n: "int | None" = None, step: int = 2) -> int:
    """Grow `n` by "step"."""
    if n is None:
        raise ValueError("n must be given, not " + "None")
    log.debug("growing %s", n)
    warnings.warn("slow")
    assert n >= 0, "negative"
    return n + step
'''


def _changes(source: str) -> list[str]:
    lines = set(range(1, source.count("\n") + 1))
    return [s.change for s in mutants.find_sites(source, lines)]


def test_type_only_code_docstrings_and_messages_are_never_mutated() -> None:
    found = _changes(TYPED)
    assert not [c for c in found if "TYPE_CHECKING" in c or "LIMIT" in c or "`3` →" in c]
    assert not [c for c in found if "int" in c or "size" in c]  # annotations, stubs, bodies
    assert not [c for c in found if "XX" in c]  # the docstring, the messages, the log text
    assert not [c for c in found if "log.debug" in c or "warnings.warn" in c]
    # What the code does is still mutated: its conditions, its arithmetic, its default.
    assert "`is None` → `is not None`" in found and "`+` → `-`" in found
    assert "`>= 0` → `> 0`" in found and "`2` → `3`" in found
    assert any(c.startswith("raise ValueError") for c in found)  # raising at all matters


def test_benchmark_docs_and_example_files_are_not_mutated() -> None:
    assert not can_matter("asv_bench/benchmarks/dataset.py")
    assert not can_matter("benchmarks/bench_io.py") and not can_matter("doc/conf.py")
    # Prose, man pages, pictures and tables are no part of the fix's behaviour.
    for path in ("CHANGELOG.md", "changes/123.bugfix.rst", "NEWS", "doc/fd.1", "fd.1",
                 "README", "History.md", "data/table.csv", "icon.svg", "docs-src/x.md"):  # fmt: skip
        assert not can_matter(path), path
    for path in ("src/changes.py", "lib/news_feed.js", "src/cli.rs", "templates/page.html"):
        assert can_matter(path), path
    assert not can_matter("examples/plot.py") and can_matter("xarray/core/formatting.py")
    patch = (
        "--- a/asv_bench/benchmarks/repr.py\n+++ b/asv_bench/benchmarks/repr.py\n@@ -1 +1 @@\n"
        "-x = 1\n+x = 2\n--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    )
    assert changed_lines(patch) == {"pkg/core.py": {1}}


def test_docstring_comment_and_type_only_lines_are_inert() -> None:
    inert = inert_lines(TYPED)
    rows = TYPED.splitlines()
    assert {rows.index("if TYPE_CHECKING:") + 1, rows.index("class Row(TypedDict):") + 2} <= inert
    assert rows.index('    """Grow `n` by "step"."""') + 1 in inert
    assert rows.index("    return n + step") + 1 not in inert


def _proofs(source: str) -> dict[str, str]:
    lines = set(range(1, source.count("\n") + 1))
    choice = choose({"m.py": source}, {"m.py": lines}, 100)
    return {c.site.change: why for c, why in choice.proven}


def test_clamps_boundaries_are_proven_equivalent_its_other_mutants_are_not() -> None:
    proofs = _proofs(CLAMP_FIX["clamp.py"])
    assert set(proofs) == {"`< lo` → `<= lo`", "`> hi` → `>= hi`"}
    assert all(p.startswith("boundary") for p in proofs.values())
    # A ternary whose both branches are the compared values, and an if/else, likewise.
    assert _proofs("def m(a, b):\n    return a if a < b else b\n") == {
        "`< b` → `<= b`": "boundary: both branches give the same value there"
    }
    assert "`< b` → `<= b`" in _proofs(
        "def m(a, b):\n    if a < b:\n        return a\n    else:\n        return b\n"
    )
    # Not when the other path returns something else.
    assert _proofs("def m(a, b):\n    if a < b:\n        return a\n    return 0\n") == {}


def test_symmetric_swaps_membership_strings_and_folded_constants_are_proven() -> None:
    proofs = _proofs(
        "def m(a, b, c):\n    top = max(a, b)\n    if c in 'mM':\n        return top\n"
        "    if False:\n        return 1\n    return pow(a, b)\n"
    )
    assert proofs["arguments of `max()` swapped"] == "`max()` is symmetric in its arguments"
    assert proofs["`'mM'` → `'XXmMXX'`"].startswith("membership string")
    assert proofs["`1` → `2`"] == "same bytecode after constant folding"  # dead code
    assert "arguments of `pow()` swapped" not in proofs  # not symmetric: a real mutant


CALLS = SOURCE + (
    "\n\ndef call(x):\n    return g(\n        x,\n        strict=True,  # why\n"
    "        last=(x > 1)\n    )\n"
)
"""SOURCE and a call the fix adds arguments to, one a line (each can be removed)."""


def test_text_edits_write_the_same_mutants_as_the_whole_rewrite() -> None:
    lines = {7, 8, 9, 10, 11, 15, 20, 21, 22, 23}
    sites = mutants.find_sites(CALLS, lines)
    assert len(sites) > 20 and all(s.splice is not None for s in sites)
    assert sum(s.operator == "argument removed" for s in sites) == 3
    for s in sites:
        edited = ast.dump(ast.parse(sources.mutant_source(CALLS, lines, s)))
        assert edited == ast.dump(ast.parse(mutants.plain(CALLS, lines, s.id))), s.change


def test_the_same_bytecode_is_judged_on_the_statement_that_holds_the_change() -> None:
    fixed = "import os\n\n\ndef f(x):\n    return x * (2 + 3)\n"
    assert same_bytecode(fixed, fixed.replace("(2 + 3)", "5"), 5, statement_lines(fixed))
    assert not same_bytecode(fixed, fixed.replace("(2 + 3)", "6"), 5, statement_lines(fixed))


def test_sites_found_statement_by_statement_are_the_whole_files() -> None:
    lines = {7, 8, 9, 10, 11, 15, 20, 21, 22, 23}
    whole = mutants.find_sites(CALLS, lines)
    alone = scoped.find_sites(CALLS, lines)
    assert len(alone) == len(whole) > 20 and all(s.scope is not None for s in alone)
    for a, b in zip(whole, alone, strict=True):
        assert (a.id, a.line, a.change, a.switchable, a.splice) == (
            b.id,
            b.line,
            b.change,
            b.switchable,
            b.splice,
        )
        plain = ast.dump(ast.parse(mutants.plain(CALLS, lines, a.id)))
        assert ast.dump(ast.parse(scoped.plain(CALLS, lines, b))) == plain


CLASSES = '''import typing


class Outer(Base):
    """Many methods: only the changed ones are parsed, after this header."""

    limit = 3

    def first(self, x):
        return x + 1

    class Inner:
        @staticmethod
        def second(y, z=2):
            if y < z:
                raise ValueError("y %s" % y)
            return max(y, z) * 2


class Shape(typing.Protocol):
    def area(self) -> float:
        return 1.0 + 2.0


async def top(a):
    return a - 1
'''


def test_methods_are_parsed_after_their_class_headers_and_find_the_whole_files_sites() -> None:
    for lines in ({10, 16, 17, 18, 23, 27}, {7, 10}, {15, 16, 17}):
        whole = mutants.find_sites(CLASSES, lines)
        alone = scoped.find_sites(CLASSES, lines)
        assert len(alone) == len(whole) > 0
        for a, b in zip(whole, alone, strict=True):
            assert (a.id, a.line, a.change, a.function, a.switchable, a.equivalent) == (
                b.id, b.line, b.change, b.function, b.switchable, b.equivalent,
            )  # fmt: skip
            assert a.splice == b.splice and a.argument == b.argument
            plain = ast.dump(ast.parse(mutants.plain(CLASSES, lines, a.id)))
            assert ast.dump(ast.parse(scoped.plain(CLASSES, lines, b))) == plain
    methods = scoped.find_sites(CLASSES, {10, 17})
    assert {s.scope[2].splitlines()[0] for s in methods if s.scope} == {"class Outer(Base):"}
    assert all(s.scope and "def " not in s.scope[2] for s in methods)
    # A changed class attribute: the whole class is parsed.
    assert all(s.scope and s.scope[2] == "" for s in scoped.find_sites(CLASSES, {7}))
    # The protocol's method keeps its class: nothing in it is mutated.
    assert scoped.find_sites(CLASSES, {23}) == mutants.find_sites(CLASSES, {23}) == []


def test_only_what_the_fix_writes_is_mutated_not_what_it_rewraps() -> None:
    # sphinx-7268's kind of change: a call rewrapped to add one ENUM candidate.
    fixed = 'def setup(app):\n    app.add("a", True,\n            ENUM("a", "c", "b"))\n'
    patch = (
        "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n def setup(app):\n"
        '-    app.add("a", True, ENUM("a", "b"))\n'
        '+    app.add("a", True,\n+            ENUM("a", "c", "b"))\n'
    )
    written = new_tokens(patch)
    assert written == {"m.py": [(3, 22, 25), (3, 25, 26)]}  # `"c"` and its comma
    chosen = choose({"m.py": fixed}, changed_lines(patch), 30, written).chosen
    changes = [c.site.change for c in chosen]
    assert '`"c"` → `"XXcXX"`' in changes and "`True` → `False`" not in changes
    assert not [c for c in changes if c.startswith(('`"a"', '`"b"'))]
    # New lines are new whatever tokens they share with the old ones (clamp's `return x`).
    lines = {"clamp.py": set(range(2, 8))}
    clamp_patch = (
        "--- a/clamp.py\n+++ b/clamp.py\n@@ -1,2 +1,7 @@\n def clamp(x, lo, hi):\n"
        "-    return min(x, hi)\n"
        + "".join("+" + row + "\n" for row in CLAMP_FIX["clamp.py"].splitlines()[1:])
    )
    every = choose(CLAMP_FIX, lines, 30).chosen
    assert len(choose(CLAMP_FIX, lines, 30, new_tokens(clamp_patch)).chosen) == len(every) == 7


FLOW = """import warnings


def check(cls, bases):
    problems = ", ".join(str(b) for b in bases)
    header = "bases: " + problems
    if len(bases) > 1:
        warnings.warn(f"{cls.__name__}: {header}")
    kind = "pair"
    if len(bases) > 2:
        raise ValueError(kind)
    sep = "; "
    shown = sep.join(bases)
    total = "|".join(bases)
    total += "!"
    warnings.warn(total)
    listed = " / ".join(str(b) for b in bases if b)
    if listed:
        warnings.warn("listed: " + listed)
    named = "" + "".join(bases)
    if not named:
        warnings.warn(named)
    return shown
"""


def test_values_only_a_message_reads_are_not_mutated() -> None:
    found = _changes(FLOW)
    # Read only by a warning, or only by the value of a name only a warning reads, or only
    # by what is raised: the text of a message.
    assert not [c for c in found if '", "' in c or "bases: " in c or '"pair"' in c], found
    # Read by what the function returns, or rebound after: what the fix does.
    assert '`"; "` → `"XX; XX"`' in found and '`"|"` → `"XX|XX"`' in found
    assert "`> 1` → `>= 1`" in found  # the condition around a warning still matters
    # Read by a warning and tested for truth: text no mutant can empty or fill is a message's,
    # what decides whether it is empty is not (which bases are listed, an empty separator).
    assert not [c for c in found if c.startswith(('`" / "`', '`"listed: "`'))], found
    assert "`listed` negated" in found and '`""` → `"XXXX"`' in found


HELPERS = {
    "util.py": (
        "def split_into(n, kind, value):\n"
        "    parts = value.split(';')\n"
        "    if len(parts) > n:\n"
        "        raise ValueError('invalid %s entry: %r' % (kind, value))\n"
        "    return parts\n\n\n"
        "def lookup(table, kind):\n"
        "    return table[kind]\n\n\n"
        "class Index:\n"
        "    def add(self, kind, value):\n"
        "        label = 'bad ' + kind\n"
        "        if not value:\n"
        "            raise ValueError(label)\n"
    ),
}
HELPER_CALLS = """from util import Index, lookup, split_into


def feed(index, table, value):
    first, second = split_into(2, 'pair', value)
    kind = lookup(table, 'pair')
    index.add('single', value)
    index.add(kind='single', value=value)
    return split_into(1, kind='triple', value=value), missing('see')
"""


def test_strings_a_called_function_only_puts_in_a_message_are_proven_equivalent() -> None:
    def sources(name: str) -> dict[str, str]:
        return {p: t for p, t in HELPERS.items() if f"def {name}" in t}

    lines = set(range(1, HELPER_CALLS.count("\n") + 1))
    choice = choose({"feed.py": HELPER_CALLS}, {"feed.py": lines}, 50)
    set_aside(choice, sources)
    proven = {c.site.line: why for c, why in choice.proven if c.site.operator == "string"}
    kept = {c.site.line for c in choice.chosen if c.site.operator == "string"}
    # `kind` only in what is raised, by position, by keyword, through a method's local.
    assert {5, 7, 8, 9} <= set(proven) and "`split_into()`" in proven[5]
    assert 6 in kept  # a key of a lookup: what the call returns
    assert not any("see" in c.site.change for c, _ in choice.proven)  # no definition found


MARKER = """def check(obj):
    cls = type(obj)
    attr_name = "_warned_once"
    if getattr(cls, attr_name, False):
        return
    setattr(cls, attr_name, True)
    label = "_label"
    setattr(cls, label, True)
    return label


def pair(obj):
    if getattr(obj, "_seen", False):
        return
    setattr(obj, "_seen", True)
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_a_private_attribute_name_held_in_one_local_and_named_nowhere_else_is_a_rename(
    tmp_path: Path,
) -> None:
    lines = set(range(1, MARKER.count("\n") + 1))
    sites = {s.change: s.attribute for s in mutants.find_sites(MARKER, lines)}
    assert sites['`"_warned_once"` → `"XX_warned_onceXX"`'] == "_warned_once"
    assert sites['`"_label"` → `"XX_labelXX"`'] == ""  # also returned: callers see it
    assert sites['`"_seen"` → `"XX_seenXX"`'] == ""  # two literals: a mutant breaks the pair

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "other.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    base = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()

    def proven(fixed: dict[str, str], tests: str = "") -> list[str]:
        choice = choose({"m.py": fixed["m.py"]}, {"m.py": lines}, 50)
        set_aside_renames(choice, repo / ".git", base, fixed, tests)
        return [why for c, why in choice.proven if "_warned_once" in c.site.change]

    (why,) = proven({"m.py": MARKER})
    assert why.startswith("a private attribute's name only this function uses")
    # Named by a test, or by another file of the fix: a caller may read it.
    assert proven({"m.py": MARKER}, tests="+    assert C._warned_once\n") == []
    assert proven({"m.py": MARKER, "n.py": "print(C._warned_once)\n"}) == []
    # Named in the repository at the base commit.
    (repo / "other.py").write_text("y = C._warned_once\n")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "uses it")
    base = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert proven({"m.py": MARKER}) == []

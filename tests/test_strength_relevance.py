"""Only code that can matter is mutated (issue 37): not type-only code, docstrings, messages
or what only a message reads, not docs, benchmarks or examples, nor what the fix only
rewraps. No execution of a repository here."""

from __future__ import annotations

from spice_engine.strength import mutants
from spice_engine.strength.choose import choose
from spice_engine.strength.new_tokens import new_tokens
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.relevance import can_matter, inert_lines
from tests.strength_support import CLAMP_FIX

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

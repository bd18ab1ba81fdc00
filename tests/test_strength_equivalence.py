"""Equivalent mutants are proven so before any run (issue 37): boundaries, symmetric swaps,
membership strings, folded constants, strings a called function only puts in a message, and
private attribute names renamed. No execution of a repository here."""

from __future__ import annotations

import subprocess
from pathlib import Path

from spice_engine.strength import mutants
from spice_engine.strength.callee_messages import set_aside
from spice_engine.strength.choose import choose
from spice_engine.strength.equivalence import same_bytecode, statement_lines
from spice_engine.strength.private_renames import set_aside_renames
from tests.strength_support import CLAMP_FIX


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


def test_the_same_bytecode_is_judged_on_the_statement_that_holds_the_change() -> None:
    fixed = "import os\n\n\ndef f(x):\n    return x * (2 + 3)\n"
    assert same_bytecode(fixed, fixed.replace("(2 + 3)", "5"), 5, statement_lines(fixed))
    assert not same_bytecode(fixed, fixed.replace("(2 + 3)", "6"), 5, statement_lines(fixed))


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

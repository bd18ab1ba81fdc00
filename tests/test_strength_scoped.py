"""Mutants found statement by statement, and written as text edits, are the whole-file
rewrite's: the same sites and the same mutated code, methods parsed after their class's
header. No execution of a repository here."""

from __future__ import annotations

import ast

from spice_engine.strength import mutants, scoped, sources
from tests.test_strength_mutants import SOURCE

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

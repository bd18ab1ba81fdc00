"""Mutation sites found in the top-level statements that hold the changed lines, each parsed
alone: libcst's positions over a whole large file cost about a second per pass, and the fix
usually touches a few functions of it.

Site ids are those of the whole file (sites are numbered in traversal order, counting only
those on changed lines, all of which lie in these statements), so the schema, built from the
whole file, switches the same mutants.
"""

from __future__ import annotations

import dataclasses

from spice_engine.strength.equivalence import statement_lines
from spice_engine.strength.mutants import find_sites as whole_file_sites
from spice_engine.strength.mutants import run_mutator
from spice_engine.strength.sites import Site


def _scopes(source: str, lines: set[int]) -> list[tuple[int, int]] | None:
    spans = statement_lines(source)
    if not spans:
        return None  # Python's parser refuses it: libcst decides on the whole file
    found = [(a, b) for a, b in spans if any(a <= n <= b for n in lines)]
    outside = {n for n in lines if not any(a <= n <= b for a, b in found)}
    # A changed line outside every statement is a comment or a blank: nothing to mutate there.
    return found if all(not _code(source, n) for n in outside) else None


def _code(source: str, n: int) -> bool:
    rows = source.splitlines()
    text = rows[n - 1].strip() if 0 < n <= len(rows) else ""
    return bool(text) and not text.startswith("#")


def _shift(site: Site, k: int, a: int, b: int) -> Site:
    splice = site.splice
    if splice is not None:
        splice = (splice[0] + a - 1, splice[1], splice[2] + a - 1, splice[3], splice[4])
    return dataclasses.replace(
        site, id=k, line=site.line + a - 1, splice=splice, scope=(a, b, site.id)
    )


def find_sites(source: str, lines: set[int]) -> list[Site]:
    """As `mutants.find_sites`, parsing only the statements that hold `lines`."""
    scopes = _scopes(source, lines)
    if scopes is None:
        return whole_file_sites(source, lines)
    rows = source.splitlines(keepends=True)
    out: list[Site] = []
    for a, b in scopes:
        snippet = "".join(rows[a - 1 : b])
        mine = {n - a + 1 for n in lines if a <= n <= b}
        for site in run_mutator(snippet, mine, None, False)[1]:
            out.append(_shift(site, len(out), a, b))
    return out


def plain(source: str, lines: set[int], site: Site) -> str:
    """`source` with `site`'s mutant alone, rewritten in its statement only when it was found
    there."""
    if site.scope is None:
        return run_mutator(source, lines, {site.id}, False)[0]
    a, b, local = site.scope
    rows = source.splitlines(keepends=True)
    mine = {n - a + 1 for n in lines if a <= n <= b}
    snippet = run_mutator("".join(rows[a - 1 : b]), mine, {local}, False)[0]
    return "".join(rows[: a - 1]) + snippet + "".join(rows[b:])

"""Which mutants of a fix to try: spread over its changed lines, none that changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from libcst import CSTValidationError, ParserSyntaxError

from spice_engine.strength import scoped, sources
from spice_engine.strength.equivalence import same_bytecode, statement_lines
from spice_engine.strength.mutants import Site
from spice_engine.strength.new_tokens import Span, touches
from spice_engine.strength.sites import told_apart

GOLDEN = 0.6180339887498949
"""Stride of the spread: consecutive picks land far apart along the sites (a Weyl sequence)."""
ID_STRIDE = 100_000
"""Mutant ids of the n-th file start at n * ID_STRIDE, so files share one schema session."""


@dataclass(frozen=True)
class Chosen:
    key: int
    """The mutant's id in the schema (`SPICE_MUTANT`)."""
    path: str
    site: Site
    source: str
    """The fixed file with this mutant alone."""


@dataclass
class Choice:
    chosen: list[Chosen]
    equivalent: int
    """Mutants skipped before any run: duplicates, the same program, and `proven`."""
    unparsable: list[str]
    originals: dict[str, str]
    lines: dict[str, set[int]]
    proven: list[tuple[Chosen, str]] = field(default_factory=list)
    """Mutants proven equivalent, with the proof (reported as `equivalent`, never run)."""
    unreadable: list[str] = field(default_factory=list)
    """Changed files no grammar reads (no mutant of them)."""


def spread(n: int) -> list[int]:
    """0..n-1 in an order whose first k land far apart for every k (a Weyl sequence): the
    first mutants chosen cover the fix, wherever the limit cuts."""
    return sorted(range(n), key=lambda i: ((i * GOLDEN) % 1.0, i))


def choose(
    files: dict[str, str],
    lines: dict[str, set[int]],
    limit: int,
    written: dict[str, list[Span]] | None = None,
) -> Choice:
    """Up to `limit` mutants of the changed `lines` of `files` (path -> fixed source), spread
    over all sites; those with the fixed file's AST (or another mutant's) are skipped."""
    sites: list[tuple[int, str, Site]] = []
    unparsable = []
    for n, path in enumerate(sorted(files)):
        try:
            found = scoped.find_sites(files[path], lines[path])
        except (ParserSyntaxError, CSTValidationError, RecursionError):
            unparsable.append(path)
            continue
        if written is not None:  # only mutants of what the fix writes, not of what it moves
            found = [s for s in found if _of_the_fix(s, written.get(path, []))]
        sites += [(n, path, s) for s in found]
    said = told_apart([(path, s.line, s.change) for _, path, s in sites])
    sites = [(n, path, replace(s, change=c)) for (n, path, s), c in zip(sites, said, strict=True)]
    chosen: list[Chosen] = []
    proven: list[tuple[Chosen, str]] = []
    seen: set[tuple[str, str]] = set()
    spans = {path: statement_lines(files[path]) for path in files}
    equivalent = 0
    for i in spread(len(sites)):
        if len(chosen) >= limit:
            break
        n, path, site = sites[i]
        try:
            source = sources.mutant_source(files[path], lines[path], site)
        except CSTValidationError:  # a rewrite libcst refuses: not a mutant we can write
            equivalent += 1
            continue
        key = (path, source)
        if key in seen or source == files[path]:
            equivalent += 1
            continue
        seen.add(key)
        c = Chosen(n * ID_STRIDE + site.id, path, site, source)
        proof = site.equivalent or (
            "same bytecode after constant folding"
            if same_bytecode(files[path], source, site.line, spans[path])
            else ""
        )
        if proof:
            equivalent += 1
            proven.append((c, proof))
            continue
        chosen.append(c)
    chosen.sort(key=lambda c: c.key)
    return Choice(chosen, equivalent, unparsable, files, lines, proven)


def _of_the_fix(site: Site, written: list[Span]) -> bool:
    """A mutant whose change touches a token the fix writes (one without a text edit: kept)."""
    if site.splice is None:
        return True
    l1, c1, l2, c2, _ = site.splice
    return touches(written, (l1, c1), (l2, c2))


def schema_sources(choice: Choice) -> dict[str, str]:
    """Each file with its switchable chosen mutants (files without any: not rewritten)."""
    out = {}
    for n, path in enumerate(sorted(choice.originals)):
        ids = {c.site.id for c in choice.chosen if c.path == path and c.site.switchable}
        if ids:
            out[path] = sources.schema(
                choice.originals[path], choice.lines[path], ids, n * ID_STRIDE
            )
    return out

"""The mutants of one session's fix: libcst's for Python sources (a schema can switch them, and
the equivalence proofs know Python), tree-sitter's for every other file a grammar reads (each
mutant one run). Which files may be mutated is the language's to say (`Language.mutable`)."""

from __future__ import annotations

from dataclasses import replace

from spice_engine.langs import languages
from spice_engine.langs.capabilities import copying_calls
from spice_engine.runs.session import Session
from spice_engine.strength.callee_messages import repository_sources, set_aside
from spice_engine.strength.choose import ID_STRIDE, Choice, Chosen, choose, spread
from spice_engine.strength.new_tokens import Span, new_tokens
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.private_renames import set_aside_renames
from spice_engine.strength.sites import Site, told_apart
from spice_engine.strength.syntax_mutants import (
    REMOVED,
    STATEMENT,
    SyntaxSite,
    find_sites,
    grammar_for,
    mutant_source,
)

LIBCST_SUFFIX = ".py"
"""The sources libcst's mutator reads."""


def candidates(session: Session, limit: int) -> Choice:
    """Up to `limit` mutants of the fix's changed lines, spread over them (the session's tree
    holds the fix)."""
    job, tree = session.job, session.tree
    lines = changed_lines(job.patch, session.language.mutable)  # none that cannot matter
    fixed = {p: tree.source(p) for p in lines}
    ours = {p for p in lines if p.endswith(LIBCST_SUFFIX)}
    choice = choose(
        {p: fixed[p] for p in ours}, {p: lines[p] for p in ours}, limit, new_tokens(job.patch)
    )
    if ours:
        base = str(job.instance["base_commit"])
        set_aside(choice, repository_sources(job.git_dir, base, choice.originals))
        set_aside_renames(choice, job.git_dir, base, choice.originals, job.test_patch)
    others = {p: fixed[p] for p in lines if p not in ours}
    if others:
        written = new_tokens(job.patch, session.language.mutable)
        left = limit - len(choice.chosen)
        _add_syntax(choice, others, (lines, written), job.language, left, len(ours))
    return choice


def _add_syntax(
    choice: Choice,
    fixed: dict[str, str],
    changed: tuple[dict[str, set[int]], dict[str, list[Span]]],
    language: str,
    limit: int,
    first_file: int,
) -> None:
    """Tree-sitter's mutants of `fixed`, spread over their sites, after `choice`'s own (keys
    past those of its files); `changed`: each file's changed lines and the tokens the fix
    writes there (a mutant of a token it only moves is none of the fix's)."""
    lines, written = changed
    copying = copying_calls(languages()[language])
    sites: list[tuple[str, SyntaxSite, str]] = []
    for path in sorted(fixed):
        grammar = grammar_for(language, path)
        if grammar is None:
            choice.unreadable.append(path)
            continue
        found = find_sites(fixed[path], lines[path], grammar, written.get(path, []), copying)
        sites += [(path, s, grammar) for s in found]
    said = told_apart([(path, s.line, s.change) for path, s, _ in sites])
    sites = [(p, replace(s, change=c), g) for (p, s, g), c in zip(sites, said, strict=True)]
    seen: set[str] = set()
    base = first_file * ID_STRIDE
    for path, site, grammar in _removals_last(sites):
        if limit <= 0:
            break
        source = mutant_source(fixed[path], site, grammar)
        if source is None or source in seen or source == fixed[path]:
            choice.equivalent += source is not None
            continue
        seen.add(source)
        n = len(seen) - 1
        plain = Site(n, site.line, site.operator, site.change, site.function, switchable=False)
        choice.chosen.append(Chosen(base + n, path, plain, source))
        limit -= 1
    choice.originals.update(fixed)
    choice.lines.update({p: lines[p] for p in fixed})


def _removals_last(sites: list[tuple[str, SyntaxSite, str]]) -> list[tuple[str, SyntaxSite, str]]:
    """The sites spread over the fix, a removed statement after every changed value or
    condition (the weaker evidence: often what it breaks is a value no caller reads), a removed
    method call last: in a typed language the call's value rarely has its receiver's type, so
    such a mutant most often does not build, and a build is what each one costs; the limit or
    the budget cuts them first."""
    kept = [sites[i] for i in spread(len(sites))]
    order = {STATEMENT: 1, REMOVED: 2}
    return sorted(kept, key=lambda x: order.get(x[1].operator, 0))

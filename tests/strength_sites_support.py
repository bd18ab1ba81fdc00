"""The mutation sites of a fix made in a small git repository, chosen as for a PR: its changed
lines, the tokens it writes, through tree-sitter's operators."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from spice_engine.strength.new_tokens import new_tokens
from spice_engine.strength.parts import changed_lines
from spice_engine.strength.syntax_mutants import SyntaxSite, find_sites
from tests.fakes.sample_project import git, instance_of


def _line_change(site: SyntaxSite) -> str:
    return f"{site.line} {site.change}"


def fix_sites(
    tmp_path: Path,
    path: str,
    before_after: tuple[str, str],
    grammar: str,
    copying: frozenset[str] = frozenset(),
    said: Callable[[SyntaxSite], str | None] = _line_change,
) -> list[str | None]:
    """`said` of each site (by default `line change`) of the fix turning `path` from before
    into after."""
    bug, fix = before_after
    repo = tmp_path / "repo"
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(bug)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "base")
    patch = instance_of(repo, "octo/repo", {path: fix}, ("t.txt", "x\n"), "bug")["patch"]
    every = lambda p: not p.endswith(".txt")  # noqa: E731 - the language's `mutable`
    lines, written = changed_lines(patch, every)[path], new_tokens(patch, every)[path]
    return [said(s) for s in find_sites(fix, lines, grammar, written, copying)]

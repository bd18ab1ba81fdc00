"""String mutants proven equivalent before any run because they rename a private attribute
nothing else names (spice_engine.strength.attribute_names finds such strings): the host's git
on the bare repository at the base commit, never a checkout, and the fix and its tests as
given."""

from __future__ import annotations

from pathlib import Path

from spice_engine.strength.choose import Choice
from spice_engine.validate.gitwork import GitError, git

RENAMED = (
    "a private attribute's name only this function uses (`{name}`, through one local): "
    "renamed everywhere at once"
)


def _named_elsewhere(name: str, path: str, fixed: dict[str, str], test_patch: str) -> bool:
    if fixed.get(path, "").count(name) != 1 or name in test_patch:
        return True
    return any(name in text for p, text in fixed.items() if p != path)


def set_aside_renames(
    choice: Choice, git_dir: Path, commit: str, fixed: dict[str, str], test_patch: str
) -> None:
    """Chosen string mutants that rename a private attribute nothing else names: proven."""
    kept = []
    for c in choice.chosen:
        name = c.site.attribute if c.site.operator == "string" else ""
        if name and not _named_elsewhere(name, c.path, fixed, test_patch):
            try:
                listed = git(git_dir, "grep", "-l", "-F", "-e", name, commit)
            except GitError:  # no match (exit 1)
                listed = ""
            paths = {line.split(":", 1)[-1] for line in listed.splitlines()}
            if paths <= {c.path}:
                choice.proven.append((c, RENAMED.format(name=name)))
                continue
        kept.append(c)
    choice.chosen = kept

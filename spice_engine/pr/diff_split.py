"""Split a PR diff into gold (source) and test patches, byte-exact, with unidiff metadata."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

from spice_engine.errors import InputError
from spice_engine.langs import languages
from spice_engine.langs.base import TEST_FOLDERS, Language
from spice_engine.pr.inline_tests import INLINE_SUFFIXES, split_hunks

Kind = Literal["test", "source"]

OTHER_TEST_FILES = (
    "*_spec.rb",
    "*_test.rb",
    "*Test.kt",
    "*Tests.cs",
    "*_test.exs",
    "*_test.dart",
    "*Test.php",
)
"""Test files of languages no language file runs (spice_engine.langs): split all the same."""
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


class SplitRules(BaseModel):
    """Per-repository overrides, checked before the built-in rules (source globs first)."""

    source_globs: list[str] = Field(default_factory=list)
    """Paths matching any of these are source, whatever the built-in rules say."""
    test_globs: list[str] = Field(default_factory=list)
    """Paths matching any of these are tests."""


class FileDiff(BaseModel):
    """One file's part of a diff: its exact text and what unidiff says about it."""

    path: str
    kind: Kind
    text: str
    source_path: str | None = None
    """Path before the change; differs from `path` for renames, None for added files."""
    binary: bool = False
    added: bool = False
    removed: bool = False
    hunks: int = 0


class SplitDiff(BaseModel):
    """A diff as gold patch + test patch; `preamble` is any text before the first file."""

    preamble: str = ""
    files: list[FileDiff]

    @property
    def gold(self) -> str:
        return self.preamble + "".join(f.text for f in self.files if f.kind == "source")

    @property
    def test(self) -> str:
        return "".join(f.text for f in self.files if f.kind == "test")

    def join(self) -> str:
        """The original diff, byte for byte, in its original file order."""
        return self.preamble + "".join(f.text for f in self.files)

    def touched(self, kind: Kind | None = None) -> list[str]:
        return [f.path for f in self.files if kind is None or f.kind == kind]


def _glob_match(path: str, globs: list[str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(fnmatchcase(path, g) or ("/" not in g and fnmatchcase(name, g)) for g in globs)


def classify(path: str, rules: SplitRules | None = None) -> Kind:
    """`test` for test code and test data, `source` otherwise."""
    if rules and _glob_match(path, rules.source_globs):
        return "source"
    if rules and _glob_match(path, rules.test_globs):
        return "test"
    *dirs, name = path.split("/")
    if any(d in TEST_FOLDERS for d in dirs) or any(fnmatchcase(name, g) for g in OTHER_TEST_FILES):
        return "test"
    # Each language's own rule (its test files, its test folders).
    return "test" if any(lang.is_test_path(path) for lang in _languages()) else "source"


@cache
def _languages() -> tuple[Language, ...]:
    return tuple(languages().values())


def _file_starts(lines: list[str]) -> list[int]:
    """Line indexes where a file's section begins; hunk bodies are skipped by their counts."""
    starts: list[int] = []
    old = new = 0
    in_git_header = False
    for i, line in enumerate(lines):
        if old > 0 or new > 0:
            tag = line[:1]
            if tag in (" ", "\n", "\r", ""):
                old, new = old - 1, new - 1
            elif tag == "-":
                old -= 1
            elif tag == "+":
                new -= 1
            continue
        if line.startswith("diff --git "):
            starts.append(i)
            in_git_header = True
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if not in_git_header:
                # A plain (non-git) diff: the file begins at its `---` line.
                starts.append(i)
            in_git_header = False
        elif m := _HUNK.match(line):
            in_git_header = False
            old = int(m.group(1)) if m.group(1) is not None else 1
            new = int(m.group(2)) if m.group(2) is not None else 1
    return starts


def split_diff(text: str, rules: SplitRules | None = None) -> SplitDiff:
    """Split a unified (git) diff per file; raises InputError on a malformed diff."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    try:
        patch = PatchSet(text)
    except UnidiffParseError as exc:
        raise InputError(f"malformed diff: {exc}") from exc
    lines = text.splitlines(keepends=True)
    starts = _file_starts(lines)
    if not patch or not starts:
        raise InputError(
            "malformed diff: no file sections found (expected 'diff --git' or ---/+++)"
        )
    if len(starts) != len(patch):
        raise InputError(
            f"malformed diff: found {len(starts)} file sections but unidiff parsed {len(patch)}"
        )
    bounds = [*starts, len(lines)]
    files = []
    for parsed, begin, end in zip(patch, bounds, bounds[1:], strict=False):
        path = parsed.path
        source = parsed.source_file
        kind = classify(path, rules)
        text = "".join(lines[begin:end])
        parts = split_hunks(text) if kind == "source" and path.endswith(INLINE_SUFFIXES) else None
        if parts is not None:  # an inline test module's hunks go with the tests
            gold_text, test_text = parts
            hunks = test_text.count("\n@@ ")
            files.append(
                FileDiff(
                    path=path,
                    kind="test",
                    text=test_text,
                    hunks=hunks,
                    source_path=_strip_prefix(source),
                )
            )
            if not gold_text:
                continue
            text = gold_text
        files.append(
            FileDiff(
                path=path,
                kind=kind,
                text=text,
                source_path=None if parsed.is_added_file else _strip_prefix(source),
                binary=parsed.is_binary_file,
                added=parsed.is_added_file,
                removed=parsed.is_removed_file,
                hunks=len(parsed) if parts is None else text.count("\n@@ "),
            )
        )
    return SplitDiff(preamble="".join(lines[: starts[0]]), files=files)


def _strip_prefix(name: str | None) -> str | None:
    if name is None or name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def rules_for(repo: str | None, overrides: dict[str, SplitRules] | None) -> SplitRules | None:
    """The override rules configured for `owner/name`, if any."""
    return (overrides or {}).get(repo or "")

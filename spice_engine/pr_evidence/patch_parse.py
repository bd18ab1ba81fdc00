"""Unified diffs to per-file pre/post-image fragments, parsed with `ast` where a hunk allows."""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from spice_engine.errors import InputError

# Directory or file names that mark test code; `src/_pytest` is pytest's source, not tests.
_TEST_PATH = re.compile(
    r"(^|/)(tests?|testing)(/|$)|(^|/)test_[^/]*$|_tests?\.py$|(^|/)conftest\.py$"
)


def is_test_path(path: str) -> bool:
    return bool(_TEST_PATH.search(path)) and "/_pytest/" not in f"/{path}"


@dataclass
class Line:
    """One line of a hunk's pre- or post-image with its number in that image."""

    number: int
    text: str
    changed: bool
    """Added (post-image) or removed (pre-image)."""


@dataclass
class FileDiff:
    """One file of a patch: its hunks as pre- and post-image line lists."""

    path: str
    is_new: bool = False
    is_deleted: bool = False
    post_hunks: list[list[Line]] = field(default_factory=list)
    pre_hunks: list[list[Line]] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    """Each hunk's `@@ ... @@ section` header: the enclosing def or class, when git found one."""

    @property
    def is_python(self) -> bool:
        return self.path.endswith(".py")

    @property
    def is_test(self) -> bool:
        return is_test_path(self.path)

    @property
    def added(self) -> list[Line]:
        return [line for hunk in self.post_hunks for line in hunk if line.changed]

    @property
    def removed(self) -> list[Line]:
        return [line for hunk in self.pre_hunks for line in hunk if line.changed]


def parse_patch(text: str) -> list[FileDiff]:
    """Every file of a unified diff; an unreadable diff is an InputError."""
    if not text.strip():
        return []
    try:
        patch = PatchSet(io.StringIO(text))
    except UnidiffParseError as exc:
        raise InputError(f"cannot read diff: {exc}") from exc
    files: list[FileDiff] = []
    for pf in patch:
        diff = FileDiff(path=pf.path, is_new=pf.is_added_file, is_deleted=pf.is_removed_file)
        for hunk in pf:
            post: list[Line] = []
            pre: list[Line] = []
            for line in hunk:
                text_ = line.value.rstrip("\n")
                if line.is_added or line.is_context:
                    post.append(Line(line.target_line_no or 0, text_, line.is_added))
                if line.is_removed or line.is_context:
                    pre.append(Line(line.source_line_no or 0, text_, line.is_removed))
            diff.post_hunks.append(post)
            diff.pre_hunks.append(pre)
            diff.sections.append(hunk.section_header or "")
        files.append(diff)
    return files


@dataclass
class Fragment:
    """A parsed piece of a hunk: an `ast` tree, or tokens when no slice of it parses."""

    lines: list[Line]
    tree: ast.Module | None = None
    line_numbers: list[int] = field(default_factory=list)
    """Maps the tree's 1-based line numbers to the image's line numbers."""
    tokens: list[tuple[int, tokenize.TokenInfo]] = field(default_factory=list)
    """(image line number, token) for the tokenize fallback."""

    def image_line(self, tree_line: int) -> int:
        index = tree_line - 1
        if 0 <= index < len(self.line_numbers):
            return self.line_numbers[index]
        return self.line_numbers[-1] if self.line_numbers else 0


_CONTINUATION = re.compile(r"^(elif|else|except|finally)\b")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _open_blocks(texts: list[str]) -> str:
    """`if 1:` headers that let a hunk starting deep inside a block parse after dedenting."""
    first = _indent(texts[0])
    levels = sorted({_indent(t) for t in texts if t.strip() and _indent(t) < first})
    return "".join(" " * level + "if 1:\n" for level in levels)


def _try_parse(lines: list[Line]) -> Fragment | None:
    """Parse `lines` dedented, with small repairs for a cut-off block head or tail."""
    if not any(line.text.strip() for line in lines):
        return None
    body = textwrap.dedent("\n".join(line.text for line in lines))
    numbers = [line.number for line in lines]
    texts = body.split("\n")
    first = next(t for t in texts if t.strip())
    prefix = ""
    if _CONTINUATION.match(first.strip()):
        # A hunk that starts at `else:`/`except:` needs the statement it continues.
        head = "try:" if first.strip().startswith(("except", "finally")) else "if 1:"
        prefix = f"{head}\n    pass\n"
    elif _indent(first) > 0:
        prefix = _open_blocks([t for t in texts if t.strip()])
    last = next(t for t in reversed(texts) if t.strip())
    for tail in ("", "\n" + " " * (_indent(last) + 4) + "pass"):
        try:
            tree = ast.parse(prefix + body + tail)
        except (SyntaxError, ValueError):
            continue
        shift = prefix.count("\n")
        mapped = [numbers[0]] * shift + numbers + [numbers[-1]] * 2
        return Fragment(lines=lines, tree=tree, line_numbers=mapped)
    return None


def _parse_slice(lines: list[Line]) -> Fragment | None:
    """The first parseable variant of `lines`, trimming a few lines cut mid-statement."""
    for start in range(min(len(lines), 8)):
        rest = lines[start:]
        if not rest or not rest[0].text.strip():
            continue
        for end in range(len(rest), max(len(rest) - 4, 0), -1):
            fragment = _try_parse(rest[:end])
            if fragment is not None:
                return fragment
    return None


def _tokenize_lines(lines: list[Line]) -> Fragment:
    tokens: list[tuple[int, tokenize.TokenInfo]] = []
    for line in lines:
        try:
            for token in tokenize.generate_tokens(io.StringIO(line.text.strip()).readline):
                tokens.append((line.number, token))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            continue  # an unterminated string or bracket: keep the tokens read so far
    return Fragment(lines=lines, tokens=tokens)


def _changed_runs(hunk: list[Line]) -> list[list[Line]]:
    runs: list[list[Line]] = []
    current: list[Line] = []
    for line in hunk:
        if line.changed:
            current.append(line)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def parse_hunk(hunk: list[Line]) -> list[Fragment]:
    """Fragments covering the changed lines of one hunk image: whole hunk, runs, then tokens."""
    whole = _parse_slice(hunk)
    covered = {line.number for line in whole.lines} if whole else set()
    fragments = [whole] if whole else []
    for run in _changed_runs(hunk):
        missing = [line for line in run if line.number not in covered]
        if not missing:
            continue
        fragment = _parse_slice(missing)
        if fragment is not None:
            fragments.append(fragment)
            covered.update(line.number for line in fragment.lines)
        leftover = [line for line in missing if line.number not in covered]
        if leftover:
            fragments.append(_tokenize_lines(leftover))
    return fragments

"""Repository context for a PR: aider's RepoMap focused on the touched files, plus their text."""

from __future__ import annotations

import contextlib
import io
import keyword
import os
import re
import time
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from spice_engine.pr.diff_split import FileDiff, SplitDiff, classify
from spice_engine.pr.repo_files import (
    MAX_FILE_BYTES,
    read_regular,
    relative_to_root,
    tracked_regular_files,
)
from spice_engine.pr.tokens import TiktokenModel, count_tokens, truncate_to_tokens

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_COMMON = frozenset(
    {"self", "cls", "None", "True", "False", "return", "import", "from", "def", "class", "the"}
    | {"and", "not", "for", "with", "this", "that", "args", "kwargs", "assert", "test", "tests"}
)


class ContextOptions(BaseModel):
    """Token budgets of the PR context."""

    max_prompt_tokens: int = Field(default=24_000, ge=2_000)
    """Hard cap on the whole prompt; anything larger is trimmed by priority and recorded."""
    map_tokens: int = Field(default=4_096, ge=0)
    """Budget of aider's repository map."""
    files_tokens: int = Field(default=10_000, ge=0)
    """Budget for the touched files' text at the base commit."""
    max_file_tokens: int = Field(default=4_000, ge=200)
    """A touched file larger than this is shown as the definitions around its changed lines."""
    max_idents: int = Field(default=60, ge=0)
    max_file_bytes: int = Field(default=MAX_FILE_BYTES, ge=1)
    """Files larger than this are never read, for the map or the prompt."""


class FileText(BaseModel):
    """A touched file's text at the base commit, whole or as an excerpt."""

    path: str
    kind: str
    text: str
    excerpt: bool = False
    tokens: int = 0


class RepoContext(BaseModel):
    """What the repository adds to the prompt, and how long it took to build."""

    repo_map: str = ""
    files: list[FileText] = Field(default_factory=list)
    idents: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    seconds: float = 0.0


class _SilentIO:
    """What RepoMap calls on aider's InputOutput: no terminal output, and only the files of
    `allowed` read, as data (`repo_files.read_regular`)."""

    def __init__(self, root: Path, allowed: dict[str, int]) -> None:
        self.root, self.allowed = root, allowed

    def tool_output(self, *args: Any, **kwargs: Any) -> None:
        pass

    tool_warning = tool_error = tool_output

    def read_text(self, filename: str, silent: bool = False) -> str | None:
        path = relative_to_root(self.root, filename)
        if path is None or path not in self.allowed:
            return None
        return read_regular(self.root, path)


def new_repo_map(root: Path, map_tokens: int) -> Any:
    """aider's RepoMap with its tag cache in the clone's `.git`, out of the tree: in the
    tree, a repository could commit a crafted cache (diskcache unpickles its values)."""
    from aider.repomap import RepoMap

    class _RepoMap(RepoMap):
        TAGS_CACHE_DIR = str(tag_cache_dir(root))

    return _RepoMap(
        map_tokens=map_tokens,
        root=str(root),
        main_model=TiktokenModel(),
        io=_SilentIO(root, {}),
        refresh="files",
    )


def tag_cache_dir(root: Path) -> Path:
    """Where aider's tag cache for `root` lives: inside `.git`, which no checkout can write."""
    git_dir = root / ".git"
    if git_dir.is_dir() and not git_dir.is_symlink():
        return git_dir / "spice-aider-tags"
    return Path(os.path.realpath(root)).parent / f".{root.name}.spice-aider-tags"


def hunk_lines(file: FileDiff) -> list[int]:
    """0-based line numbers in the base file that the hunks touch."""
    from unidiff import PatchSet

    lines: list[int] = []
    for parsed in PatchSet(file.text):
        for hunk in parsed:
            start = max(hunk.source_start - 1, 0)
            lines.extend(range(start, start + max(hunk.source_length, 1)))
    return lines


def diff_identifiers(split: SplitDiff, limit: int) -> list[str]:
    """Identifiers on changed lines and hunk headers, most frequent first."""
    counts: Counter[str] = Counter()
    for f in split.files:
        for line in f.text.splitlines():
            if line.startswith(("+++", "---")):
                continue
            if line.startswith(("+", "-")) or line.startswith("@@"):
                counts.update(
                    w for w in _IDENT.findall(line) if w not in _COMMON and not keyword.iskeyword(w)
                )
    return [w for w, _ in counts.most_common(limit)]


def excerpt(path: Path, code: str, lines: list[int], limit: int) -> str:
    """The enclosing definitions of the changed lines (grep-ast), cut to `limit` tokens."""
    from grep_ast import TreeContext, filename_to_lang

    text = ""
    if filename_to_lang(str(path)) and lines:
        try:
            ctx = TreeContext(
                str(path),
                code,
                line_number=True,
                child_context=False,
                last_line=False,
                margin=0,
                loi_pad=3,
                show_top_of_file_parent_scope=False,
            )
            ctx.add_lines_of_interest([n for n in lines if n < len(ctx.lines)])
            ctx.add_context()
            text = ctx.format()
        except (ValueError, RecursionError):
            text = ""
    if not text:
        picked = sorted(set(lines))
        src = code.splitlines()
        text = "\n".join(f"{n + 1}: {src[n]}" for n in picked if n < len(src))
    return truncate_to_tokens(text, limit, "[... excerpt cut to its token budget ...]")


def map_candidates(allowed: dict[str, int]) -> list[str]:
    """Tracked source files aider can tag; tests stay out of the map unless touched."""
    from grep_ast import filename_to_lang

    return [p for p in sorted(allowed) if classify(p) == "source" and filename_to_lang(p)]


class RepoContextBuilder:
    """Builds contexts, keeping one RepoMap per clone so in-memory caches survive across jobs."""

    def __init__(self, options: ContextOptions | None = None, max_maps: int = 8) -> None:
        self.options = options or ContextOptions()
        self._maps: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self.max_maps = max_maps

    def _repo_map(self, root: Path, commit: str, allowed: dict[str, int]) -> Any:
        key = str(root)
        cached = self._maps.pop(key, None)
        if cached is None:
            rm = new_repo_map(root, self.options.map_tokens)
        else:
            rm = cached[1]
            if cached[0] != commit:
                # Maps are cached by file names only: another commit must not reuse them.
                rm.map_cache.clear()
                rm.last_map = None
        rm.io = _SilentIO(root, allowed)
        self._maps[key] = (commit, rm)
        while len(self._maps) > self.max_maps:
            self._maps.popitem(last=False)
        return rm

    def build(self, root: Path, split: SplitDiff, commit: str = "") -> RepoContext:
        """Map + touched files' text for a checkout of the PR's base at `root`."""
        started = time.perf_counter()
        opts = self.options
        root = Path(os.path.realpath(root))
        ctx = RepoContext(idents=diff_identifiers(split, opts.max_idents))
        allowed = tracked_regular_files(root, opts.max_file_bytes)
        if not allowed:
            ctx.notes.append("no tracked files readable at the base commit")
        touched = {f.source_path or f.path for f in split.files if not f.added} & set(allowed)
        chat = [str(root / p) for p in sorted(touched)]
        if opts.map_tokens > 0 and allowed:
            others = [str(root / p) for p in map_candidates(allowed) if p not in touched]
            rm = self._repo_map(root, commit, allowed)
            # aider's progress bars write to the terminal; JSON output must stay clean.
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                ctx.repo_map = rm.get_repo_map(chat, others, mentioned_idents=set(ctx.idents)) or ""
            if not ctx.repo_map:
                ctx.notes.append("repository map is empty (no taggable source files)")
        ctx.files = self._touched_texts(root, split, allowed)
        ctx.seconds = time.perf_counter() - started
        return ctx

    def _touched_texts(
        self, root: Path, split: SplitDiff, allowed: dict[str, int]
    ) -> list[FileText]:
        opts = self.options
        budget = opts.files_tokens
        texts: list[FileText] = []
        # Source files first: they show what the gold patch changes.
        ordered = sorted(split.files, key=lambda f: f.kind != "source")
        for f in ordered:
            path = f.source_path or f.path
            if f.added or f.binary or path not in allowed:
                continue
            code = read_regular(root, path, opts.max_file_bytes)
            if code is None:
                continue
            base = root / path
            tokens = count_tokens(code)
            item = FileText(path=f.source_path or f.path, kind=f.kind, text=code, tokens=tokens)
            if tokens > min(opts.max_file_tokens, budget):
                limit = min(opts.max_file_tokens, max(budget, 0))
                if limit < 100:
                    continue
                item.text = excerpt(base, code, hunk_lines(f), limit)
                item.excerpt, item.tokens = True, count_tokens(item.text)
            budget -= item.tokens
            texts.append(item)
        return texts

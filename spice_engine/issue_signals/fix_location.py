"""Where a known fix changes the code, and whether the issue points there (Agentless's question)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import unidiff

from spice_engine.issue_signals.facts import Frame
from spice_engine.issue_signals.markdown_parts import IssueParts
from spice_engine.issue_signals.mentions import Mentions
from spice_engine.issue_signals.models import LocalizationKind

_DEF = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JOINED = re.compile(r"(?<![\w-])[A-Za-z]+(?:[-_][A-Za-z0-9]+)+(?![\w-])")
_LINE_NUMBER = re.compile(r"\d+")
MIN_SPOKEN = 9
"""A name spoken of in words must be long enough not to be an everyday word (`run`, `fit`)."""
LINE_TOLERANCE = 5
"""Issues quote line numbers of the reporter's version: near the changed lines counts."""
# Stems that say nothing about which file is meant when they appear as an English word.
_GENERIC_STEMS = frozenset({"__init__", "base", "utils", "util", "core", "main", "common", "misc"})


@dataclass
class FixLocation:
    """The files, enclosing definitions and source lines a patch changes."""

    files: list[str] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    """Functions and methods whose body (or definition) the fix changes."""
    classes: set[str] = field(default_factory=set)
    """Classes whose body the fix changes outside any method."""
    lines: dict[str, list[int]] = field(default_factory=dict)
    added: list[str] = field(default_factory=list)
    """Substantial added lines, whitespace removed (to recognise a fix quoted in the issue)."""


def fix_location(patch: str) -> FixLocation | None:
    """Parse a unified diff; None when it has no file or cannot be parsed."""
    try:
        files = unidiff.PatchSet(patch)
    except (unidiff.UnidiffParseError, ValueError):
        return None
    loc = FixLocation()
    for f in files:
        path = f.path
        loc.files.append(path)
        for hunk in f:
            enclosing = _DEF.match(hunk.section_header or "")
            current = enclosing.groups() if enclosing else None
            for line in hunk:
                text = line.value.rstrip("\n")
                defined = _DEF.match(text)
                if defined and not line.is_added:
                    current = defined.groups()
                if not (line.is_added or line.is_removed):
                    continue
                if line.is_added and _is_substantial(text):
                    loc.added.append(re.sub(r"\s+", "", text))
                if defined:
                    _add(loc, defined.groups())
                elif current and text.strip() and _indent(text) > len(current[0]):
                    _add(loc, current)
                number = line.source_line_no or hunk.source_start
                loc.lines.setdefault(path, []).append(number)
    return loc if loc.files else None


def _is_substantial(text: str) -> bool:
    stripped = text.strip()
    return len(stripped) >= 12 and not stripped.startswith(("#", '"' * 3, "'" * 3))


def quotes_fix(fix: FixLocation, raw_issue: str) -> int:
    """How many of the fix's substantial added lines the issue already contains."""
    squashed = re.sub(r"\s+", "", raw_issue)
    return sum(1 for a in dict.fromkeys(fix.added) if a in squashed)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _add(loc: FixLocation, definition: tuple[str, ...]) -> None:
    _, kind, name = definition
    (loc.functions if kind == "def" else loc.classes).add(name)


def _norm(path: str) -> str:
    return path.replace("\\", "/").lstrip("./~")


def _same_file(mentioned: str, fix_file: str) -> bool:
    """`.../site-packages/django/db/x.py` or `x.py` names `django/db/x.py`."""
    m, f = _norm(mentioned), _norm(fix_file)
    if "/" not in m:
        return f.rsplit("/", 1)[-1] == m
    m_parts, f_parts = m.split("/"), f.split("/")
    common = 0
    while common < min(len(m_parts), len(f_parts)) and m_parts[-1 - common] == f_parts[-1 - common]:
        common += 1
    return common >= min(2, len(f_parts))


def _module_names(fix_file: str) -> set[str]:
    """Dotted forms of a file path: django/db/models/deletion.py -> db.models.deletion, ..."""
    parts = _norm(fix_file).removesuffix(".py").split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return {".".join(parts[i:]) for i in range(len(parts) - 1)}


def _identifiers(parts: IssueParts, mentions: Mentions) -> set[str]:
    named = mentions.functions + mentions.classes + mentions.modules + mentions.code_calls
    names = {n.split(".")[-1] for n in named} | {n for n in named}
    names |= {w for c in parts.inline_code for w in _WORD.findall(c)}
    names |= set(_WORD.findall(parts.title))
    return names


def _names_part(mention: str, function: str) -> bool:
    """`Product` names `_print_Product`; `inherited_members` names `inherited_members_option`."""
    segments = [s for s in function.split("_") if s]
    wanted = [s for s in mention.split("_") if s]
    n = len(wanted)
    if n == 1 and not mention[:1].isupper():
        return False  # a lone lowercase word (`only`) is too common; `Product` in `_print_Product` is not
    return any(segments[i : i + n] == wanted for i in range(len(segments) - n + 1))


def _spoken_of(function: str, prose_words: set[str]) -> bool:
    """Every part of the name appears, maybe inflected, as a word of the prose."""
    parts = _words(function)
    if not parts or sum(map(len, parts)) < MIN_SPOKEN or any(len(p) < 4 for p in parts):
        return False
    return all(
        any(w.startswith(p[: max(5, len(p) - 3)]) for w in prose_words if len(w) >= 5)
        for p in parts
    )


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ")
    return [w.lower() for w in spaced.split() if len(w) > 1]


def localize_to_fix(
    fix: FixLocation, parts: IssueParts, mentions: Mentions, stack: list[Frame]
) -> tuple[LocalizationKind, LocalizationKind, LocalizationKind]:
    """File, function and line localization relative to the fix, strongest kind first."""
    prose = " ".join(parts.prose).lower()
    prose_words = set(_WORD.findall(prose))
    idents = _identifiers(parts, mentions)
    dotted = {
        n.lower() for n in mentions.modules + mentions.functions + mentions.classes if "." in n
    }

    file: LocalizationKind = "none"
    if any(_same_file(fr.path, f) for fr in stack for f in fix.files):
        file = "stacktrace"
    elif (
        any(_same_file(p, f) for p in mentions.paths for f in fix.files)
        or any(
            d.startswith(m) or m in d for d in dotted for f in fix.files for m in _module_names(f)
        )
        or (fix.functions | fix.classes) & idents
    ):
        file = "keywords"
    elif any(
        (stem := _norm(f).rsplit("/", 1)[-1].removesuffix(".py")) not in _GENERIC_STEMS
        and all(w in prose_words for w in _words(stem))
        for f in fix.files
    ):
        file = "natural_language"

    function: LocalizationKind = "none"
    code_shaped = {n.split(".")[-1] for n in mentions.functions + mentions.classes}
    code_shaped |= {w for c in parts.inline_code for w in re.findall(r"[A-Za-z_][\w-]*", c)}
    code_shaped |= set(_JOINED.findall(parts.title))  # `inherited-members`, `min_degrees`
    code_shaped = {n.replace("-", "_").strip("_") for n in code_shaped if len(n) >= 4}
    if any(
        fr.function in fix.functions and any(_same_file(fr.path, f) for f in fix.files)
        for fr in stack
        if fr.function
    ):
        function = "stacktrace"
    elif fix.functions & idents or any(
        _names_part(n, fn) for n in code_shaped for fn in fix.functions
    ):
        function = "keywords"
    elif any(_spoken_of(fn, prose_words) for fn in fix.functions):
        function = "natural_language"  # `_dataset_concat` spoken of as "concatenating datasets"

    if file in ("none", "natural_language") and function in ("stacktrace", "keywords"):
        file = "keywords"  # naming the changed function names its file too

    line: LocalizationKind = "none"
    near = [(f, n) for f, numbers in fix.lines.items() for n in numbers]
    if any(
        fr.line is not None and _same_file(fr.path, f) and abs(fr.line - n) <= LINE_TOLERANCE
        for fr in stack
        for f, n in near
    ):
        line = "stacktrace"
    elif file != "none" and any(
        abs(int(x) - n) <= LINE_TOLERANCE
        for ref in mentions.line_refs
        for x in _LINE_NUMBER.findall(ref)
        for _, n in near
    ):
        line = "keywords"
    return file, function, line

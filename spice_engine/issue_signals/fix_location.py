"""Where a known fix changes the code, and whether the issue points there (Agentless's question)."""

from __future__ import annotations

import re

from spice_engine.issue_signals.facts import Frame
from spice_engine.issue_signals.fix_patch import FixLocation
from spice_engine.issue_signals.markdown_parts import IssueParts
from spice_engine.issue_signals.mentions import Mentions
from spice_engine.issue_signals.models import LocalizationKind

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JOINED = re.compile(r"(?<![\w-])[A-Za-z]+(?:[-_][A-Za-z0-9]+)+(?![\w-])")
_LINE_NUMBER = re.compile(r"\d+")
MIN_SPOKEN = 9
"""A name spoken of in words must be long enough not to be an everyday word (`run`, `fit`)."""
LINE_TOLERANCE = 5
"""Issues quote line numbers of the reporter's version: near the changed lines counts."""
# Stems that say nothing about which file is meant when they appear as an English word.
_GENERIC_STEMS = frozenset({"__init__", "base", "utils", "util", "core", "main", "common", "misc"})


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
    named = mentions.functions + mentions.classes + mentions.modules
    # A plain word used in the reporter's example (`fit`, `autoscale`) is how they call the
    # library, not a pointer to where it fails; a compound name is specific enough to count.
    named += [c for c in mentions.code_calls if _compound(c.split(".")[-1])]
    names = {n.split(".")[-1] for n in named} | {n for n in named}
    names |= {w for c in parts.inline_code for w in _WORD.findall(c)}
    return names


_HUMP = re.compile(r"[a-z0-9][A-Z]")


def _compound(name: str) -> bool:
    """`check_array`, `SeqFormula`: two or more words joined (dunders like `__init__` are not)."""
    if name.startswith("__") and name.endswith("__"):
        return False
    return "_" in name.strip("_") or bool(_HUMP.search(name))


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


# A token of prose and what follows it: `serialize=False`, `obj.attr`, `call(`, `snake_case`.
_TOKEN = re.compile(r"[\w.]+(?:\s*[=(])?")


def _english_words(parts: IssueParts) -> set[str]:
    """Words of the prose used as English, not code pasted into a sentence (`serialize=False`)."""
    words: set[str] = set()
    for m in _TOKEN.finditer(" ".join(parts.prose)):
        token = m.group(0).strip(".")
        if not any(c in token for c in "_.=(") and token.isalpha():
            words.add(token.lower())
    return words


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ")
    return [w.lower() for w in spaced.split() if len(w) > 1]


_NESTED = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>", "<module>"})
_LAYOUT_DIRS = frozenset({"src", "lib", "python"})


def _packages(fix: FixLocation) -> set[str]:
    """Top-level package directories of the fixed files (`lib/matplotlib/x.py` -> matplotlib)."""
    tops = set()
    for f in fix.files:
        dirs = _norm(f).split("/")[:-1]
        while dirs and dirs[0] in _LAYOUT_DIRS:
            dirs = dirs[1:]
        if dirs:
            tops.add(dirs[0])
    return tops


def _failing_frames(stack: list[Frame], fix: FixLocation) -> list[Frame]:
    """Per traceback, the innermost named frame in the project's own package.

    A traceback points at the function that failed; the callers above it only lead there.
    """
    packages = _packages(fix)
    innermost: dict[int, Frame] = {}
    for fr in stack:
        path = "/" + _norm(fr.path)
        if not fr.function or fr.function in _NESTED:
            continue
        if not packages or any(f"/{p}/" in path for p in packages):
            innermost[fr.traceback] = fr
    return list(innermost.values())


def _near(number: int, changed: set[int]) -> bool:
    return any(n in changed for n in range(number - LINE_TOLERANCE, number + LINE_TOLERANCE + 1))


def localize_to_fix(
    fix: FixLocation, parts: IssueParts, mentions: Mentions, stack: list[Frame]
) -> tuple[LocalizationKind, LocalizationKind, LocalizationKind]:
    """File, function and line localization relative to the fix, strongest kind first."""
    idents = _identifiers(parts, mentions)
    file = _file_kind(fix, parts, mentions, stack, idents)
    function, existing = _function_kind(fix, parts, mentions, stack, idents)
    if existing and file in ("none", "natural_language") and function in ("stacktrace", "keywords"):
        file = "keywords"  # naming the changed function names its file too
    line, pointed = _line_kind(fix, mentions, stack, file)
    if function == "none" and pointed:
        function = "natural_language"  # a line of the fixed file inside the changed function
    return file, function, line


def _file_kind(
    fix: FixLocation, parts: IssueParts, mentions: Mentions, stack: list[Frame], idents: set[str]
) -> LocalizationKind:
    prose_words = set(_WORD.findall(" ".join(parts.prose).lower()))
    dotted = {
        n.lower() for n in mentions.modules + mentions.functions + mentions.classes if "." in n
    }
    if any(_same_file(fr.path, f) for fr in stack for f in fix.files):
        return "stacktrace"
    if (
        any(_same_file(p, f) for p in mentions.paths for f in fix.files)
        or any(
            d.startswith(m) or m in d for d in dotted for f in fix.files for m in _module_names(f)
        )
        or (fix.functions | fix.classes) & idents
    ):
        return "keywords"
    if any(
        (stem := _norm(f).rsplit("/", 1)[-1].removesuffix(".py")) not in _GENERIC_STEMS
        and all(w in prose_words for w in _words(stem))
        for f in fix.files
    ):
        return "natural_language"
    return "none"


def _function_kind(
    fix: FixLocation, parts: IssueParts, mentions: Mentions, stack: list[Frame], idents: set[str]
) -> tuple[LocalizationKind, bool]:
    """The kind, and whether the function named already exists (a new one locates nothing)."""
    code_shaped = {n.split(".")[-1] for n in mentions.functions + mentions.classes}
    code_shaped |= {w for c in parts.inline_code for w in re.findall(r"[A-Za-z_][\w-]*", c)}
    code_shaped = {n.replace("-", "_").strip("_") for n in code_shaped if len(n) >= 4}
    if any(
        fr.function in fix.functions and any(_same_file(fr.path, f) for f in fix.files)
        for fr in _failing_frames(stack, fix)
    ):
        return "stacktrace", True
    if fix.functions & idents or any(
        _names_part(n, fn) for n in code_shaped for fn in fix.functions
    ):
        return "keywords", True
    if fix.new_functions & idents:
        return "keywords", False  # a function yet to be written tells nothing of where it lives
    english = _english_words(parts)
    if any(_spoken_of(fn, english) for fn in fix.functions):
        return "natural_language", True  # `_dataset_concat` spoken of as "concatenating datasets"
    return "none", True


def _line_kind(
    fix: FixLocation, mentions: Mentions, stack: list[Frame], file: LocalizationKind
) -> tuple[LocalizationKind, bool]:
    """The kind, and whether a quoted line number falls inside a changed function."""
    changed = {f: set(numbers) for f, numbers in fix.lines.items()}
    if any(
        fr.line is not None and _same_file(fr.path, f) and _near(fr.line, numbers)
        for fr in stack
        for f, numbers in changed.items()
    ):
        return "stacktrace", False
    if file == "none":
        return "none", False
    owner_of = {n: o for lines in fix.owners.values() for n, o in lines}
    quoted = {int(x) for ref in mentions.line_refs for x in _LINE_NUMBER.findall(ref)[:4]}
    pointed = [
        owner_of[n]
        for x in quoted
        for n in range(x - LINE_TOLERANCE, x + LINE_TOLERANCE + 1)
        if n in owner_of
    ]
    return ("keywords" if pointed else "none"), any(pointed)

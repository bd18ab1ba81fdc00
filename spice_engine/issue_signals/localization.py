"""Localization signal: does the issue point at the faulty file, function and line, and how."""

from __future__ import annotations

import re

from spice_engine.issue_signals.facts import Frame
from spice_engine.issue_signals.markdown_parts import IssueParts
from spice_engine.issue_signals.mentions import Mentions
from spice_engine.issue_signals.models import CodeMention, Localization, LocalizationKind

_DEFINED = re.compile(r"^\s*(?:(?:async\s+)?def|class)\s+(\w+)|^\s*(\w+)\s*=(?!=)", re.M)
# "the foo method", "in the X module": the code is pointed at in words.
_NL_POINTER = re.compile(
    r"\b(?:method|function|class|module|attribute|property|parameter|argument|constructor)s?\b",
    re.I,
)


def defined_in_examples(parts: IssueParts) -> set[str]:
    """Names the reporter defines in their own code: using them points at their code, not ours."""
    names: set[str] = set()
    for block in parts.blocks:
        for m in _DEFINED.finditer(block.text):
            names.add(m.group(1) or m.group(2))
    return names


def _pointers(items: list[str], own: set[str]) -> list[str]:
    return [i for i in items if i.split(".")[0] not in own and i.split(".")[-1] not in own]


def localize(parts: IssueParts, mentions: Mentions, stack: list[Frame]) -> Localization:
    """Classify file/function/line localization from the strongest kind of pointer present."""
    own = defined_in_examples(parts)
    lib_frames = [f for f in stack if f.in_library]
    functions = _pointers(mentions.functions, own)
    classes = _pointers(mentions.classes, own)
    modules = _pointers(mentions.modules, own)
    named_paths = [p for p in mentions.paths if not any(p == f.path for f in lib_frames)]
    nl = bool(_NL_POINTER.search(parts.prose_text))

    file: LocalizationKind = "none"
    if lib_frames:
        file = "stacktrace"
    elif named_paths or modules or classes or functions:
        file = "keywords"
    elif nl:
        file = "natural_language"

    function: LocalizationKind = "none"
    qualified = [f for f in functions if "." in f or f.startswith("_") or "_" in f]
    if lib_frames and any(f.function and f.function != "<module>" for f in lib_frames):
        function = "stacktrace"
    elif qualified:
        function = "keywords"
    elif functions and nl:
        function = "natural_language"

    line: LocalizationKind = "none"
    if mentions.line_refs:
        line = "keywords"
    elif lib_frames and any(f.line for f in lib_frames):
        line = "stacktrace"

    mentioned = [CodeMention(name=p, kind="path") for p in mentions.paths[:20]]
    mentioned += [CodeMention(name=m, kind="module") for m in modules[:20]]
    mentioned += [CodeMention(name=f, kind="function") for f in functions[:20]]
    mentioned += [CodeMention(name=c, kind="class") for c in classes[:20]]
    return Localization(
        file=file, function=function, line=line, mentions=mentioned, line_refs=mentions.line_refs
    )

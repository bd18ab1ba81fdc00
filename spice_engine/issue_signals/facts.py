"""Plain facts of an issue: tracebacks, error lines, expected-vs-actual, links, environment."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from spice_engine.issue_signals.markdown_parts import IssueParts

# CPython: `File "path", line N, in func`; IPython: `path in func(args)`; pytest: `path:N: in func`.
_PY_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?')
_IPY_FRAME = re.compile(r"^\s*(?:~|/|[A-Za-z]:\\|\.\.\.)([^\s:]*\.py)\s+in\s+([\w<>.]+)\(", re.M)
_PYTEST_FRAME = re.compile(r"^\s*([\w./\\-]+\.py):(\d+):\s*(?:in\s+([\w<>.]+))?", re.M)
_ERROR_LINE = re.compile(
    r"^\s*(?:E\s+)?((?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Fault))"
    r"(?::|\s*$|\s+Traceback)",
    re.M,
)
_TRACEBACK_START = re.compile(r"Traceback \(most recent call last\)")
_TRACEBACK_HEAD = re.compile(
    r"Traceback \(most recent call last\)|-{20,}\n\s*\w+(?:Error|Exception)"
)

_EXPECTED = re.compile(
    r"\b(?:expected?(?:\s+(?:behaviou?r|result|output|outcome))?|should(?:n't| not)?\s+\w+"
    r"|instead(?: of)?|supposed to|would expect|i expect|correct (?:result|output|behaviou?r)"
    r"|desired (?:result|output|behaviou?r)|ought to)\b",
    re.I,
)
_ACTUAL = re.compile(
    r"\b(?:actual(?:ly)?(?:\s+(?:behaviou?r|result|output|outcome))?|but (?:it |this |that |i )?"
    r"(?:gets?|got|returns?|returned|gives?|gave|raises?|raised|fails?|failed|shows?|produces?)"
    r"|instead|currently|results? in|returns?|raises?|gives?|outputs?|fails?|crash(?:es)?|"
    r"doesn't|does not|is not|isn't|wrong|incorrect(?:ly)?|error)\b",
    re.I,
)
_VERSION = re.compile(
    r"\b(?:python|py)\s*v?\d+\.\d+(?:\.\d+)?"
    r"|\b[A-Za-z][\w.-]*\s*(?:==|>=|<=|~=)\s*v?\d+(?:\.\d+)+\w*"
    r"|\bversions?\s*:?\s*v?\d+\.\d+(?:\.\d+)?\w*"
    r"|\b[A-Za-z][\w-]*\s+v?\d+\.\d+\.\d+\w*"
    r"|\b(?:windows|macos|mac os|os x|osx|linux|ubuntu|debian|fedora|centos)\b(?:\s*\d+(?:\.\d+)*)?",
    re.I,
)


@dataclass(frozen=True)
class Frame:
    """One stack frame quoted in the issue."""

    path: str
    line: int | None
    function: str | None
    traceback: int = 0
    """Which traceback of the issue the frame belongs to (0 for the first), in text order."""

    @property
    def in_library(self) -> bool:
        """A frame in installed or project code, not in the reporter's console or script."""
        p = self.path.replace("\\", "/")
        if p.startswith("<") or "ipython-input" in p or p in {"", "-"}:
            return False
        return "/" in p


def frames(text: str) -> list[Frame]:
    """Stack frames of Python tracebacks (CPython, IPython and pytest layouts), in text order."""
    found: list[tuple[int, str, int | None, str | None]] = []
    for m in _PY_FRAME.finditer(text):
        found.append((m.start(), m.group(1), int(m.group(2)), m.group(3)))
    for m in _IPY_FRAME.finditer(text):
        found.append((m.start(), m.group(0).strip().split(" in ")[0], None, m.group(2)))
    for m in _PYTEST_FRAME.finditer(text):
        found.append((m.start(), m.group(1), int(m.group(2)), m.group(3)))
    heads = [m.start() for m in _TRACEBACK_START.finditer(text)]
    found.sort(key=lambda f: f[0])
    return [Frame(p, n, fn, bisect.bisect_right(heads, pos)) for pos, p, n, fn in found]


_TRACE_LINE = re.compile(
    r'^\s*(?:Traceback \(most recent|File "|[\w.]*(?:Error|Exception|Warning)\b|-{5,}|~|\^+\s*$|E\s)'
)
_FRAME_LINE = re.compile(r'^\s*(?:File "|\S+\.py\s+in\s+\S+\(|\S+\.py:\d+)')
_NUMBERED_SOURCE = re.compile(r"^\s*(?:-*>\s*)?\d+\s")


def without_traceback(lines: list[str]) -> list[str]:
    """Drop traceback frames and the source lines quoted under each frame."""
    kept: list[str] = []
    in_frame = False
    for ln in lines:
        if _FRAME_LINE.match(ln):
            in_frame = True
            continue
        if in_frame and (ln.startswith((" ", "\t")) or _NUMBERED_SOURCE.match(ln)):
            continue
        if in_frame and not _TRACE_LINE.match(ln):
            in_frame = False
            continue  # the quoted source line of a frame, flush left in plain-text tracebacks
        in_frame = False
        if not _TRACE_LINE.match(ln):
            kept.append(ln)
    return kept


_ERROR_NAME = re.compile(r"\b([A-Z]\w*(?:Error|Exception))\b")


def error_lines(text: str) -> list[str]:
    """Exception class names that head an error line (`ValueError: ...`)."""
    return list(dict.fromkeys(m.group(1) for m in _ERROR_LINE.finditer(text)))


def named_errors(parts: IssueParts) -> list[str]:
    """Error lines first, then exception names the reporter quotes in prose (`raises KeyError`)."""
    named = error_lines(parts.raw) + _ERROR_NAME.findall(parts.prose_text)
    named += [n for c in parts.inline_code for n in _ERROR_NAME.findall(c)]
    return list(dict.fromkeys(named))


def has_traceback(text: str) -> bool:
    return bool(_TRACEBACK_HEAD.search(text)) or len(frames(text)) >= 1


def expected_vs_actual(parts: IssueParts) -> bool:
    """Both what should happen and what happens instead are stated."""
    prose = parts.prose_text
    expected = bool(_EXPECTED.search(prose))
    actual = bool(_ACTUAL.search(prose)) or bool(error_lines(parts.code_text))
    return expected and actual


def environment(parts: IssueParts) -> list[str]:
    """Versions and platforms stated anywhere in the issue (first few, deduplicated)."""
    found = []
    for m in _VERSION.finditer(parts.raw[:20_000]):
        found.append(m.group(0).strip())
        if len(found) >= 8:
            break
    return list(dict.fromkeys(found))


_POINTS_AWAY = re.compile(
    r"\b(?:see|details|described|explained|reported|discussed)\b[^.\n]{0,40}$", re.I
)


def link_dependent(parts: IssueParts) -> bool:
    """The substance is only behind links: the body says little of its own beyond URLs."""
    if not parts.links:
        return False
    body = parts.body_prose
    own = "\n".join(body)
    for url in parts.links:
        own = own.replace(url, " ")
    own_words = re.findall(r"[A-Za-z]{2,}", own + "\n" + parts.code_text)
    if len(own_words) < 12:
        return True
    # "Details in <link>." with hardly anything else is still a pointer, not a report.
    return len(own_words) < 40 and any(_POINTS_AWAY.search(ln) for ln in body if "://" in ln)

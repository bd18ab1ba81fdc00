"""Comments are inert: a line of a fix whose only change is its comment changes no behaviour, so
it holds no mutant and makes no part of the fix "untested" (xarray's fix that added a trailing
comment to a line was reported as an untested part).

Lines are compared with their comment and trailing blanks cut off, read as the file's language
writes comments: `#` in Python, `//` in the C family, Go, Rust, Java and JavaScript (`#` there
starts a preprocessor line or an attribute, which is code). A quote opened and not closed on the
line (a Rust lifetime, a string running on) leaves the rest of the line as it is: then the
comment, if any, is kept and the line counts as changed, never the other way round.
"""

from __future__ import annotations

from collections import Counter

MARKERS = {".py": "#"}
"""Comment marker by suffix; every other language we mutate writes `//`."""
QUOTES = "\"'`"


def _marker(path: str) -> str:
    return next((m for suffix, m in MARKERS.items() if path.endswith(suffix)), "//")


def code_of(line: str, path: str) -> str:
    """`line` without its trailing comment and trailing blanks."""
    marker, quote, i = _marker(path), "", 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in QUOTES:
            quote = ch
        elif line.startswith(marker, i):
            return line[:i].rstrip()
        i += 1
    return line.rstrip()


def same_code(added: list[str], removed: list[str], path: str) -> bool:
    """Whether lines a change adds and removes hold the same code, comments aside (blank lines
    and comment lines count as none)."""
    new = Counter(c for line in added if (c := code_of(line, path)).strip())
    old = Counter(c for line in removed if (c := code_of(line, path)).strip())
    return new == old

r"""A regular expression's alternatives, one left out: the mutant of a pattern a fix writes
(pylint-5859's `(?=(:|\s|\Z))` as `(?=(:|\s))`), which the `"XX…XX"` string mutant, renaming the
whole pattern, says nothing about. Only a raw string, or an f-string's text, holding a group
with alternatives counts as a pattern (a `|` in prose is none); at most `MAX_GROUPS` groups a
string, the last alternative of each left out.
"""

from __future__ import annotations

from typing import NamedTuple

MAX_GROUPS = 2


class Dropped(NamedTuple):
    text: str
    """The pattern with one alternative left out."""
    was: str
    now: str
    """The group before and after (what the mutant's change says)."""


def dropped_alternatives(pattern: str) -> list[Dropped]:
    """For each of the first groups holding alternatives at their own level, the pattern
    without the group's last alternative (an empty or unbalanced group is left alone)."""
    out: list[Dropped] = []
    for start, end, bars in _groups(pattern):
        last = bars[-1]
        if end - last <= 1:  # `(a|)`: the empty alternative is what the fix means
            continue
        was = pattern[start : end + 1]
        now = pattern[start:last] + ")"
        out.append(Dropped(pattern[:start] + now + pattern[end + 1 :], was, now))
        if len(out) == MAX_GROUPS:
            break
    return out


def _groups(pattern: str) -> list[tuple[int, int, list[int]]]:
    """(opening, closing, its `|`s) of each group with alternatives at its own level, in the
    order they open; escapes and character classes skipped."""
    found: list[tuple[int, int, list[int]]] = []
    stack: list[tuple[int, list[int]]] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                i += 1  # `[]...]`: a `]` first is a member
        elif char == "(":
            stack.append((i, []))
        elif char == "|" and stack:
            stack[-1][1].append(i)
        elif char == ")" and stack:
            start, bars = stack.pop()
            if bars:
                found.append((start, i, bars))
        i += 1
    if stack or in_class:
        return []  # not a pattern this reads whole
    return sorted(found)

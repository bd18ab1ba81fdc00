"""Handmade patches for the PR evidence tests: a widgets module and its tests, a git-style
diff of them, and the flags that fired."""

from __future__ import annotations

import difflib
import textwrap

from spice_engine.pr_evidence import PrEvidence

WIDGETS_OLD = '''\
"""Widgets."""


class Widget:
    def __init__(self, count):
        self.count = count

    def size(self):
        return self.count * 2


def load(path):
    with open(path) as handle:
        return handle.read()
'''


def diff(path: str, old: str, new: str) -> str:
    """A git-style unified diff of one file (old "" means a new file)."""
    old_lines = textwrap.dedent(old).splitlines(keepends=True)
    new_lines = textwrap.dedent(new).splitlines(keepends=True)
    body = difflib.unified_diff(
        old_lines, new_lines, "/dev/null" if not old else f"a/{path}", f"b/{path}", n=3
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(body)


def flag_names(ev: PrEvidence) -> set[str]:
    return {flag.name for flag in ev.flags}


def the_flag(ev: PrEvidence, name: str):  # type: ignore[no-untyped-def]
    matches = [flag for flag in ev.flags if flag.name == name]
    assert matches, f"{name} did not fire; fired: {sorted(flag_names(ev))}"
    return matches[0]


TEST_OLD = """\
import pytest

from pkg.widgets import Widget, load


def test_size():
    assert Widget(2).size() == 4
"""

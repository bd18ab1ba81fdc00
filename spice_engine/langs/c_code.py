"""C's and C++'s compiled code of a source: its translation units' objects, compiled with the
build's own flags and `-O2 -g0`, without debug sections (spice_engine.langs.c_unit).

Run after the tests have built the tree (the build folder holds what the build generated: a
`config.h`, CMake's compile commands). A header is in many units, and a line inside a
preprocessor condition may be built by another configuration than this one: neither is known.
"""

from __future__ import annotations

import re
import shlex

from spice_engine.langs.base import ENV, JOB, Files, Phase, Plan
from spice_engine.langs.c_build import top_build
from spice_engine.langs.c_unit import UNIT
from spice_engine.langs.compiled_code import DUMP, START, digest_lines

SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")
_FOLDERS = {"cmake": f"{JOB}/cmake", "meson": f"{JOB}/meson"}


def code_command(files: Files, path: str, plan: Plan) -> Phase | None:
    """Each translation unit `path` is built in, compiled again optimised."""
    build = top_build(files)
    if build is None or not path.endswith(SOURCES):
        return None
    folder = _FOLDERS.get(build.kind, build.folder or ".")
    script = START + (
        f"if [ -f {ENV}/debian/env.sh ]; then . {ENV}/debian/env.sh; fi\n"
        f'/usr/bin/python3 -c "$SPICE_C_UNIT" {build.kind} {shlex.quote(path)} '
        f"{shlex.quote(folder)} {DUMP} >&2 || exit 1\n" + digest_lines()
    )
    return Phase(argv=("sh", "-c", script), env={"SPICE_C_UNIT": UNIT}, channel=True)


def code_misses(source: str, line: int) -> str | None:
    if _conditional(source, line):
        return "inside a preprocessor condition (another configuration may build it)"
    return None


_OPENS = re.compile(r"\s*#\s*if(n?def)?\b")
_CLOSES = re.compile(r"\s*#\s*endif\b")


def _conditional(source: str, line: int) -> bool:
    """Whether `line` (1-based) sits between an `#if`/`#ifdef`/`#ifndef` and its `#endif`,
    read from the directives themselves: tree-sitter, meeting a macro it cannot expand, may
    nest the rest of a file inside an earlier condition (jq's builtin.c after its
    `#ifdef HAVE_LIBONIG`, 300 lines above the fix)."""
    depth = 0
    for text in source.splitlines()[: max(line - 1, 0)]:
        if _OPENS.match(text):
            depth += 1
        elif _CLOSES.match(text) and depth:
            depth -= 1
    return depth > 0

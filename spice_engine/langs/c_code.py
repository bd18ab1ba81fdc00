"""C's and C++'s compiled code of a source: its translation units' objects, compiled with the
build's own flags and `-O2 -g0`, without debug sections (spice_engine.langs.c_unit).

Run after the tests have built the tree (the build folder holds what the build generated: a
`config.h`, CMake's compile commands). A header is in many units, and a line inside a
preprocessor condition may be built by another configuration than this one: neither is known.
"""

from __future__ import annotations

import shlex

from spice_engine.langs.base import ENV, JOB, Files, Phase, Plan
from spice_engine.langs.c_build import top_build
from spice_engine.langs.c_unit import UNIT
from spice_engine.langs.compiled_code import DUMP, START, digest_lines, enclosing

SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")
_CONDITIONS = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
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


def code_misses(source: str, line: int, grammar: str) -> str | None:
    if any(n.type in _CONDITIONS for n in enclosing(source, line, grammar)):
        return "inside a preprocessor condition (another configuration may build it)"
    return None

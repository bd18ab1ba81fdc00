"""Which build a C or C++ tree's tests go through, and the script that builds and runs them.

The build is the tree's code (a configure script, a Makefile, CMake's scripts): it runs in the
test command, in the tree, with no network, never in the install. The script's standard output
is the results channel; every build and test command writes to standard error, and only after
they end are the reports (spice_engine.langs.c_reports) printed to the channel.
"""

from __future__ import annotations

import posixpath
import re
import shlex
import shutil
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from spice_engine.langs.base import ENV, JOB, TESTBED, Files
from spice_engine.langs.c_reports import MARK

Kind = Literal["cmake", "autotools", "meson", "make"]
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
TEST_FOLDERS = {"test", "tests", "testing", "unittest", "unittests", "t"}
"""Folders whose own hand-written Makefile runs the tests of the files in them."""
REPORTS = f"{JOB}/reports"
_TARGET = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_./-]*)\s*::?(?!=)", re.M)
_COMPILER = re.compile(r"^\s*(CC|CXX)\s*[:?]?=\s*(\S+)", re.M)
_MACHINE_COMPILER = {"CC": "cc", "CXX": "c++"}


class Build(BaseModel):
    """One build system at one folder of the tree ("" the top)."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    folder: str = ""
    goal: str = ""
    """A hand-written Makefile's target that runs the tests ("" its default)."""
    overrides: tuple[str, ...] = ()
    """`make` variables set on its command line: a compiler this machine lacks replaced."""
    only: tuple[str, ...] = ()
    """CMake targets a wrong fix's run builds, where the build defines each one: the test
    patch's programs (`judged_build`); empty: everything."""


def _at(folder: str, name: str) -> str:
    return posixpath.join(folder, name) if folder else name


def hand_written(files: Files, folder: str) -> str | None:
    """The folder's Makefile when the tree tracks it and nothing generates it."""
    paths = set(files.paths())
    if {_at(folder, "Makefile.am"), _at(folder, "Makefile.in")} & paths:
        return None
    return next((_at(folder, m) for m in MAKEFILES if _at(folder, m) in paths), None)


def top_build(files: Files) -> Build | None:
    """The build of the whole tree: CMake, else autotools, else Meson, else a Makefile."""
    paths = set(files.paths())
    if "CMakeLists.txt" in paths:
        return Build(kind="cmake")
    if {"configure.ac", "configure.in", "configure"} & paths:
        return Build(kind="autotools")
    if "meson.build" in paths:
        return Build(kind="meson")
    if hand_written(files, ""):
        return _make(files, "")
    return None


def _make(files: Files, folder: str) -> Build:
    makefile = hand_written(files, folder) or _at(folder, "Makefile")
    text = files.text(makefile) or ""
    targets = {m.group(1) for m in _TARGET.finditer(text)}
    inside_tests = posixpath.basename(folder) in TEST_FOLDERS
    goal = "" if inside_tests else next((t for t in ("check", "test") if t in targets), "")
    overrides = tuple(
        f"{var}={_MACHINE_COMPILER[var]}"
        for var, program in dict(_COMPILER.findall(text)).items()
        if "$" not in program and shutil.which(program) is None
    )
    return Build(kind="make", folder=folder, goal=goal, overrides=overrides)


def build_for(files: Files, test_files: list[str]) -> Build | None:
    """The build that runs `test_files`: a hand-written Makefile in a test folder holding one
    of them (a header-only library's `test/Makefile`), else the tree's own build."""
    for path in test_files:
        folder = posixpath.dirname(path)
        while folder:
            if posixpath.basename(folder) in TEST_FOLDERS and hand_written(files, folder):
                return _make(files, folder)
            folder = posixpath.dirname(folder)
    return top_build(files)


def builds(files: Files) -> list[Build]:
    """Every build a test command may choose: the tree's, and each test folder's Makefile."""
    found = [b for b in [top_build(files)] if b is not None]
    for path in files.paths():
        folder = posixpath.dirname(path)
        makefile = posixpath.basename(path) in MAKEFILES
        if makefile and posixpath.basename(folder) in TEST_FOLDERS and hand_written(files, folder):
            found.append(_make(files, folder))
    return found


PRELUDE = f"""set -u
if [ -f {ENV}/debian/env.sh ]; then . {ENV}/debian/env.sh; fi
R={REPORTS}
rm -rf "$R" && mkdir -p "$R/gtest"
n=$(nproc 2>/dev/null || echo 2)
"""


def script(build: Build) -> str:
    """The shell script building and testing with `build`, its reports on standard output."""
    where = shlex.quote(build.folder or ".")
    built, tests = _PARTS[build.kind]
    return PRELUDE + built(build, where) + tests(build, where)


def build_script(build: Build) -> tuple[str, str]:
    """The shell script that only builds with `build` (what the tests' script builds first, in
    the same folder: a later test run rebuilds only what changed since), and the folder its
    programs are built in."""
    where = shlex.quote(build.folder or ".")
    built = _make_build if build.kind == "make" else _PARTS[build.kind][0]
    folder = _OUTPUT.get(build.kind) or posixpath.join(TESTBED, build.folder)
    return PRELUDE + built(build, where), folder.rstrip("/")


def _cmake_build(build: Build, where: str) -> str:
    # `None`: no optimisation and no debug information, the quickest to compile (Debian's own
    # packaging builds so), where a project's default is often Release. The build folder is
    # the job's: the run after the fix rebuilds what the fix changed.
    configure = f"""B={JOB}/cmake
if ! cmake -S {where} -B "$B" -DCMAKE_BUILD_TYPE=None -DBUILD_TESTING=ON >&2; then
  exit 1  # a build that fails runs no test: each is absent from this run
fi
"""
    if not build.only:
        return configure + _BUILD_ALL
    # Only where the Makefiles CMake wrote name every one of them; a test whose program is
    # not built then does not run (ctest's "notrun"), is never judged, and costs nothing.
    return (
        configure
        + f"""T={shlex.quote(" ".join(build.only))}
listed=$(cmake --build "$B" --target help 2>/dev/null)
for t in $T; do
  printf '%s\\n' "$listed" | grep -Fqx "... $t" || T=
done
if [ -z "$T" ]; then
{_BUILD_ALL}else
  cmake --build "$B" -j "$n" --target $T >&2 || exit 1
fi
"""
    )


_BUILD_ALL = """if ! cmake --build "$B" -j "$n" >&2; then
  exit 1
fi
"""


def judged_build(build: Build, test_files: list[str]) -> Build:
    """`build` for a wrong fix's run given the test patch's files alone: with CMake, only the
    programs named as its sources are (fmt's `test/format-test.cc` is `format-test`: a mutant
    of a header rebuilt twenty test programs, where the judged tests are one's)."""
    stems = tuple(
        dict.fromkeys(
            posixpath.splitext(posixpath.basename(p))[0]
            for p in test_files
            if p.endswith(PROGRAM_SOURCES)
        )
    )
    if build.kind != "cmake" or not stems or not all(_NAME.fullmatch(t) for t in stems):
        return build
    return build.model_copy(update={"only": stems})


_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
PROGRAM_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")
"""Sources a test program is built from (a header is none)."""


def _cmake_tests(build: Build, where: str) -> str:
    run = """(cd "$B" && ctest --output-junit "$R/ctest.xml" --timeout 900 >&2)\n"""
    # A narrowed build no ctest test runs a program of (a test source whose name is a library's
    # target): the whole build and every test, as validation's run was.
    again = f"""if [ -n "${{T:-}}" ] && ! grep -q 'status="run"' "$R/ctest.xml" 2>/dev/null; then
{_BUILD_ALL}{run}fi
"""
    printed = (
        f"""if [ -f "$R/ctest.xml" ]; then printf '\\n{MARK}ctest\\n'; cat "$R/ctest.xml"; fi\n"""
    )
    return run + (again if build.only else "") + printed


def _autotools_build(build: Build, where: str) -> str:
    # Configured again only when a build file changed since (the fix's `Makefile.am`); the
    # `.trs` files of an earlier run must not pass for this one's. `--disable-valgrind`: many
    # projects run their tests under valgrind when the machine has it, many times slower.
    return f"""cd {where} || exit 1
S={JOB}/configured
find . -name '*.trs' -type f -exec rm -f {{}} +
if [ ! -f "$S" ] || [ -n "$(find . \\( -name configure.ac -o -name configure.in \\
    -o -name Makefile.am -o -name '*.m4' \\) -newer "$S" -print 2>/dev/null | head -n 1)" ]; then
  {{ if [ -f configure.ac ] || [ -f configure.in ]; then autoreconf -fi; fi \\
    && ./configure --disable-valgrind; }} >&2 || exit 1
  touch "$S"
fi
make -j"$n" >&2 || exit 1
"""


def _autotools_tests(build: Build, where: str) -> str:
    prefix = f"{build.folder}/" if build.folder else ""
    return f"""make -j"$n" -k check >&2
find . -name '*.trs' -type f | sort | while read -r f; do
  t=${{f#./}}; printf '\\n{MARK}trs %s\\n' "{prefix}${{t%.trs}}"; cat "$f"
done
"""


def _meson_build(build: Build, where: str) -> str:
    return f"""B={JOB}/meson
rm -f "$B/meson-logs/testlog.junit.xml"
if [ ! -f "$B/build.ninja" ]; then meson setup "$B" {where} >&2 || exit 1; fi
meson compile -C "$B" >&2 || exit 1
"""


def _meson_tests(build: Build, where: str) -> str:
    return f"""meson test -C "$B" --print-errorlogs >&2
if [ -f "$B/meson-logs/testlog.junit.xml" ]; then
  printf '\\n{MARK}junit\\n'; cat "$B/meson-logs/testlog.junit.xml"
fi
"""


def _make_build(build: Build, where: str) -> str:
    # The Makefile's default goal: what it builds before any test target.
    overrides = " ".join(shlex.quote(a) for a in build.overrides)
    return f"""cd {where} || exit 1
make -j"$n" {overrides} >&2 || exit 1
"""


def _make_tests(build: Build, where: str) -> str:
    args = " ".join(
        shlex.quote(a) for a in [*build.overrides, *([build.goal] if build.goal else [])]
    )
    name = shlex.quote(f"{_at(build.folder, 'Makefile')}::{build.goal or 'default'}")
    prefix = f"{build.folder}/" if build.folder else ""
    # googletest writes one XML report a binary into the folder GTEST_OUTPUT names, whatever
    # runs it; a target with no report of its own is one test, judged by its exit status.
    return f"""GTEST_OUTPUT="xml:$R/gtest/"; export GTEST_OUTPUT
make -k -j"$n" {args} >&2
code=$?
found=0
for f in "$R"/gtest/*.xml; do
  [ -f "$f" ] || continue
  found=1; b=$(basename "$f" .xml); printf '\\n{MARK}gtest %s\\n' "{prefix}$b"; cat "$f"
done
if [ $found = 0 ]; then printf '\\n{MARK}target %s %s\\n' {name} "$code"; fi
"""


def _make_script(build: Build, where: str) -> str:
    """A hand-written Makefile's run: its test goal alone builds what it needs (`make -k`: a
    target that fails to build leaves the others run)."""
    return f"cd {where} || exit 1\n"


Part = Callable[[Build, str], str]
_PARTS: dict[str, tuple[Part, Part]] = {
    "cmake": (_cmake_build, _cmake_tests),
    "autotools": (_autotools_build, _autotools_tests),
    "meson": (_meson_build, _meson_tests),
    "make": (_make_script, _make_tests),
}
_OUTPUT = {"cmake": f"{JOB}/cmake", "meson": f"{JOB}/meson"}

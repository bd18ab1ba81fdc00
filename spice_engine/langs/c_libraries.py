"""The Debian packages a C or C++ build needs and this machine lacks, read off the build files.

What the build files name (`find_package`, `pkg_check_modules`, `AC_CHECK_LIB`,
`PKG_CHECK_MODULES`, Meson's `dependency()`, a Makefile's `-l` flags), the headers the sources
include and the programs the build system runs are looked up in a table of common names
(`c_debian.tsv`: data, not a rule per repository; Debian's own Contents index would cover every
file but is tens of megabytes to fetch and search). Left out: what the machine already has
(its installed packages, its headers, its programs), what the tree provides itself (its own
headers, a library it bundles as a submodule or a vendored folder), and names the table does
not know unless the build requires them: then `missing_dependency: <name>`.
"""

from __future__ import annotations

import posixpath
import re
import shutil
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from spice_engine.langs.base import Files, ToolchainMissing
from spice_engine.langs.c_build import MAKEFILES, Build

TABLE = Path(__file__).with_name("c_debian.tsv")
SOURCES = (".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".ipp")
SCANNED = 300
"""Source files read for their includes, the shallowest first (each is one git read)."""
VENDORED = {"third_party", "thirdparty", "3rdparty", "vendor", "deps", "external", "extern"}
HOST_INCLUDES = (Path("/usr/include"), Path("/usr/local/include"))
STATUS = Path("/var/lib/dpkg/status")
_PROJECT = re.compile(r"\bproject\s*\(\s*([\w.+-]+)", re.I)
_FIND_PACKAGE = re.compile(r"\bfind_package\s*\(\s*([\w.+-]+)([^)]*)\)", re.I)
_PKG_CMAKE = re.compile(r"\bpkg_(?:check_modules|search_module)\s*\(\s*\w+([^)]*)\)", re.I)
_PKG_AC = re.compile(r"\bPKG_CHECK_MODULES\s*\(\s*\[?\w+\]?\s*,\s*\[?([^\],)]+)")
_CHECK_LIB = re.compile(r"\bAC_CHECK_LIB\s*\(\s*\[?([\w+.-]+)")
_SEARCH_LIBS = re.compile(r"\bAC_SEARCH_LIBS\s*\(\s*\[?[\w]+\]?\s*,\s*\[?([^\],)]+)")
_MESON_DEP = re.compile(r"\bdependency\s*\(\s*'([^']+)'([^)]*)\)")
_LINK_FLAG = re.compile(r"(?<![\w-])-l([\w+.-]+)")
_INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>", re.M)
_CMAKE_WORDS = {"REQUIRED", "QUIET", "IMPORTED_TARGET", "GLOBAL", "NO_CMAKE_PATH"}
_AUTOTOOLS_PROGRAMS = {
    r"\bLT_INIT\b|\bA[CM]_PROG_LIBTOOL\b": "libtoolize",
    r"\bAC_PROG_YACC\b|\bAX_PROG_BISON": "bison",
    r"\bA[CM]_PROG_LEX\b|\bAC_CHECK_PROGS\s*\(\s*\[?LEX\]?\s*,\s*\[?flex": "flex",
    r"\bPKG_CHECK_MODULES\b|\bPKG_PROG_PKG_CONFIG\b": "pkg-config",
}


@cache
def table() -> dict[tuple[str, str], str]:
    """(kind, name) -> Debian package ("-": nothing to fetch)."""
    found: dict[tuple[str, str], str] = {}
    for line in TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            kind, name, package = line.split("\t")
            found[(kind, name.lower())] = package
    return found


@cache
def host_packages(status: Path = STATUS) -> frozenset[str]:
    """The machine's installed packages and the names they provide (empty: not Debian)."""
    try:
        text = status.read_text(errors="replace")
    except OSError:
        return frozenset()
    found: set[str] = set()
    for para in text.split("\n\n"):
        fields = dict(ln.partition(": ")[::2] for ln in para.splitlines() if ": " in ln)
        if fields.get("Status", "").endswith(" installed") and fields.get("Package"):
            found.add(fields["Package"])
            found.update(p.split()[0] for p in fields.get("Provides", "").split(",") if p.strip())
    return frozenset(found)


def _texts(files: Files, paths: Iterable[str]) -> list[str]:
    return [t for t in (files.text(p) for p in paths) if t]


def programs(files: Files, found: list[Build]) -> set[str]:
    """The programs the builds run (the compilers are the machine's)."""
    wanted = {"make"}
    for build in found:
        if build.kind == "cmake":
            wanted.add("cmake")
        elif build.kind == "meson":
            wanted |= {"meson", "ninja"}
        elif build.kind == "autotools":
            configure = files.text("configure.ac") or files.text("configure.in") or ""
            if configure:
                wanted |= {"autoreconf", "autoconf", "m4"}
                if "Makefile.am" in files.paths():
                    wanted |= {"automake", "aclocal"}
            wanted |= {p for rx, p in _AUTOTOOLS_PROGRAMS.items() if re.search(rx, configure)}
    return wanted


def submodules(files: Files) -> list[str]:
    """The paths `.gitmodules` names (their contents are other repositories')."""
    text = files.text(".gitmodules") or ""
    return re.findall(r"^\s*path\s*=\s*(\S+)", text, re.M)


def needed(files: Files, found: list[Build]) -> list[str]:
    """The Debian packages to fetch for `files` built with `found`; ToolchainMissing naming
    what a build requires that no known package provides."""
    names, required = _named(files)
    names |= {("program", p) for p in programs(files, found)}
    paths = files.paths()
    bundled = _bundled(paths, submodules(files))
    wanted: set[str] = set()
    for kind, name in names:
        package = _package(kind, name)
        if package and package != "-" and not _here(kind, name, bundled, paths):
            wanted.add(package)
    _check_required(files, required)
    return sorted(wanted - host_packages())


def _named(files: Files) -> tuple[set[tuple[str, str]], list[str]]:
    """(kind, name) of everything the build files and sources name, and the packages the top
    CMakeLists.txt requires (the tree's own projects left out of both)."""
    names: set[tuple[str, str]] = set()
    required: list[str] = []
    paths = files.paths()
    cmake = {
        p: files.text(p) or ""
        for p in paths
        if (posixpath.basename(p) == "CMakeLists.txt" or p.endswith(".cmake")) and not _vendored(p)
    }
    own = {m.lower() for text in cmake.values() for m in _PROJECT.findall(text)}
    for path, text in cmake.items():
        for match in _FIND_PACKAGE.finditer(text):
            if match.group(1).lower() in own:
                continue  # the tree's own package, as its build installs it
            names.add(("cmake", match.group(1)))
            if path == "CMakeLists.txt" and "REQUIRED" in match.group(2).split():
                required.append(match.group(1))
        for match in _PKG_CMAKE.finditer(text):
            names |= {("pkg", m) for m in _modules(match.group(1))}
    for text in _texts(files, ["configure.ac", "configure.in"]):
        names |= {("lib", m.group(1)) for m in _CHECK_LIB.finditer(text)}
        names |= {("lib", lib) for m in _SEARCH_LIBS.finditer(text) for lib in m.group(1).split()}
        names |= {("pkg", mod) for m in _PKG_AC.finditer(text) for mod in _modules(m.group(1))}
    for text in _texts(files, [p for p in paths if posixpath.basename(p) == "meson.build"]):
        names |= {("pkg", m.group(1)) for m in _MESON_DEP.finditer(text)}
    makes = (*MAKEFILES, "Makefile.am")
    makefiles = [p for p in paths if posixpath.basename(p) in makes and not _vendored(p)]
    for text in _texts(files, makefiles):
        names |= {("lib", m.group(1)) for m in _LINK_FLAG.finditer(text)}
    names |= {("header", h) for h in _includes(files)}
    return names, required


def _modules(words: str) -> list[str]:
    """pkg-config module names of a list with versions (`libfoo >= 1.2 libbar`)."""
    found = []
    for word in re.sub(r"[<>=!]+\s*[\w.]+", " ", words).split():
        if word.upper() not in _CMAKE_WORDS and re.match(r"^[A-Za-z][\w.+-]*$", word):
            found.append(word)
    return found


def _package(kind: str, name: str) -> str | None:
    known = table()
    if kind != "header":
        return known.get((kind, name.lower()))
    parts = name.split("/")
    for n in range(len(parts), 0, -1):
        key = "/".join(parts[:n]) + ("" if n == len(parts) else "/")
        if (found := known.get(("header", key.lower()))) is not None:
            return found
    return None


def _here(kind: str, name: str, bundled: set[str], paths: list[str]) -> bool:
    """Whether the machine or the tree has it: a program on PATH, a header of the machine's
    or of the tree's own, a library the tree bundles."""
    if kind == "program":
        return shutil.which(name) is not None
    if kind == "header":
        if any((root / name).exists() for root in HOST_INCLUDES):
            return True
        if any(Path("/usr/include").glob(f"*-linux-gnu*/{name}")):
            return True
        if any(p == name or p.endswith(f"/{name}") for p in paths):
            return True
    stem = re.sub(r"\.(h|hh|hpp)$", "", name.lower().split("/")[0]).removeprefix("lib")
    return len(stem) >= 3 and any(b.startswith(stem) for b in bundled)


def _bundled(paths: list[str], submodules: Iterable[str]) -> set[str]:
    """Names of what the tree carries of others': its submodules, its vendored folders."""
    found = {posixpath.basename(s).lower() for s in submodules}
    for path in paths:
        parts = path.lower().split("/")
        found |= {parts[i + 1] for i, part in enumerate(parts[:-1]) if part in VENDORED}
    return found


def _vendored(path: str) -> bool:
    return bool(VENDORED & set(path.lower().split("/")[:-1]))


def _includes(files: Files) -> set[str]:
    """The headers the tree's sources include (`<...>` only: `"..."` are the tree's own)."""
    sources = [p for p in files.paths() if p.endswith(SOURCES) and not _vendored(p)]
    sources.sort(key=lambda p: (p.count("/"), p))
    found: set[str] = set()
    for text in _texts(files, sources[:SCANNED]):
        found |= set(_INCLUDE.findall(text))
    return found


def _check_required(files: Files, required: list[str]) -> None:
    """A package the top CMakeLists.txt requires that no table entry, no file of the tree and
    no CMake package of the machine's provides: the build cannot be had."""
    own = " ".join(files.paths()).lower()
    for name in required:
        lowered = name.lower()
        if _package("cmake", name) is not None or f"find{lowered}.cmake" in own:
            continue
        if f"{lowered}config.cmake" in own or f"{lowered}-config.cmake" in own:
            continue
        if _machine_cmake_package(name):
            continue
        raise ToolchainMissing(f"missing_dependency: {name}")


def _machine_cmake_package(name: str) -> bool:
    """Whether CMake on this machine finds `name` (its own module, or a package's config)."""
    roots = [Path("/usr/lib/x86_64-linux-gnu/cmake"), Path("/usr/lib/cmake"), Path("/usr/share")]
    modules = list(Path("/usr/share").glob(f"cmake-*/Modules/Find{name}.cmake"))
    return bool(modules) or any(
        (root / folder).is_dir()
        for root in roots
        for folder in (name, name.lower(), f"{name.lower()}/cmake")
    )

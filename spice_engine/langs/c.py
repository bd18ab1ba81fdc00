"""C and C++: CMake, autotools, Meson and Make projects, built and tested in the test command.

Two languages with one implementation, told apart by which sources a tree has more of. The
install fetches only the Debian packages the build files name and the machine lacks
(spice_engine.langs.c_libraries, c_debian); the build is the tree's code, so it runs with the
tests (spice_engine.langs.c_build), and the results are the runners' reports
(spice_engine.langs.c_reports).
"""

from __future__ import annotations

import subprocess
from fnmatch import fnmatchcase
from functools import cache

from spice_engine.langs import c_code, c_failures, line_probes
from spice_engine.langs.base import Files, Phase, Plan, Toolchain, ToolchainMissing, with_fix_files
from spice_engine.langs.c_build import (
    PROGRAM_SOURCES,
    build_for,
    build_script,
    builds,
    judged_build,
    script,
    top_build,
)
from spice_engine.langs.c_debian import CACHE_NAME, DEBIAN, install
from spice_engine.langs.c_libraries import SOURCES, needed
from spice_engine.langs.c_reports import read_channel
from spice_engine.langs.programs import ProgramBuild, c_programs
from spice_engine.validate.outcomes import Outcomes

C_SOURCES = (".c",)
CPP_SOURCES = (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".ipp")
TEST_DIRS = {"test", "tests", "testing", "unittest", "unittests", "testdata", "test_data"}
_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++")
TEST_FILES = tuple(
    pattern + suffix
    for suffix in _SUFFIXES
    for pattern in ("*_test", "test_*", "*_unittest", "*-test", "*_tests")
)
OTHER_MANIFESTS = (
    "pyproject.toml",
    "setup.py",
    "package.json",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
)
"""Another language's project at the top: a C build beside it is that project's extension."""
_NOT_CODE = {"examples", "example", "doc", "docs", "bench", "benchmark", "benchmarks", "fuzzing"}


@cache
def machine_compiler(program: str) -> str:
    """`gcc 12.2.0`: the machine's compiler and its version (part of the environment key)."""
    try:
        version = subprocess.run(
            [program, "-dumpfullversion", "-dumpversion"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise ToolchainMissing(f"no {program} this worker's user can run") from exc
    return f"{program} {version}"


def counts(files: Files) -> tuple[int, int]:
    """How many C and how many C++ sources the tree has."""
    paths = files.paths()
    return (
        sum(p.endswith(C_SOURCES) for p in paths),
        sum(p.endswith(CPP_SOURCES) for p in paths),
    )


class CFamily:
    """What C and C++ share: the same builds, told apart by their sources."""

    name = ""
    compiler = ""
    compiled_to = "object code"

    def detect(self, files: Files) -> int:
        c, cpp = counts(files)
        ours = c > cpp if self.name == "c" else cpp >= c and cpp > 0
        if not (c or cpp) or top_build(files) is None:
            return 0
        paths = set(files.paths())
        # Below Go, Rust and Java (10), above Python's (8) unless another language's project
        # sits at the top; a lone Makefile is claimed only by a tree of mostly C or C++.
        if set(OTHER_MANIFESTS) & paths:
            score = 3
        elif {"CMakeLists.txt", "configure.ac", "configure.in", "meson.build"} & paths:
            score = 9
        else:
            score = 6 if c + cpp >= sum(p.endswith(".py") for p in paths) else 0
        return score if ours or not score else score - 1

    def is_test_path(self, path: str) -> bool:
        *folders, name = path.split("/")
        return bool(TEST_DIRS.intersection(folders)) or any(
            fnmatchcase(name, g) for g in TEST_FILES
        )

    def mutable(self, path: str) -> bool:
        folders = set(path.split("/")[:-1])
        return (
            path.endswith(SOURCES)
            and not self.is_test_path(path)
            and not _NOT_CODE.intersection(folders)
        )

    def grammar(self, path: str) -> str | None:
        if not path.endswith((*C_SOURCES, *CPP_SOURCES, ".h")):
            return None
        # A C++ project's `.c` files are C; its headers are C++.
        return "cpp" if self.name == "cpp" and not path.endswith(".c") else "c"

    def plan(self, files: Files, date: str | None) -> Plan:
        # Debian's release is the machine's: no date applies to what it serves.
        found = builds(files)
        if not found:
            raise ToolchainMissing(
                "no build system found (CMakeLists.txt, configure.ac, meson.build, Makefile)"
            )
        toolchain = machine_compiler(self.compiler)
        packages = needed(files, found)
        # What an export names: how the tree is built (cmake, autotools, meson, make).
        settings = {"build_system": ", ".join(sorted({b.kind for b in found}))}
        if not packages:
            return Plan(
                language=self.name,
                toolchain=Toolchain(name=toolchain),
                key=(),
                inputs={},
                settings=settings,
            )
        phase, inputs, suite = install(packages)
        return Plan(
            language=self.name,
            toolchain=Toolchain(name=f"{toolchain}, Debian {suite}"),
            key=tuple(packages),
            install=(phase,),
            registries=(DEBIAN,),
            inputs=inputs,
            caches=(CACHE_NAME,),
            settings=settings,
        )

    def targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        return with_fix_files(test_files, fix_files)

    def judged_targets(self, test_files: list[str], fix_files: list[str]) -> list[str]:
        """The test patch's test sources alone: `test_command` then builds only their programs,
        where CMake builds them (`judged_build`)."""
        sources = [p for p in test_files if self._test_program(p)]
        return sources or self.targets(test_files, fix_files)

    def _test_program(self, path: str) -> bool:
        return path.endswith(PROGRAM_SOURCES) and self.is_test_path(path)

    def test_command(self, files: Files, test_files: list[str], plan: Plan) -> Phase:
        """Builds the tree (the whole suite: a test that does not build leaves its suite
        unrun, as `cmake --build && ctest` or `make check` does) and runs its tests; given
        test sources alone (a wrong fix's run, `judged_targets`), CMake builds only theirs."""
        build = build_for(files, test_files)
        if build is None:
            return Phase(argv=("sh", "-c", "echo no build system found >&2; exit 1"))
        if test_files and all(self._test_program(p) for p in test_files):
            build = judged_build(build, test_files)
        # A googletest failure says `Value of: res` where a client got no connection: the
        # lookups noted between its `[ RUN ]` and `[  FAILED  ]` lines say why.
        return Phase(argv=("sh", "-c", script(build)), channel=True, lookups=True)

    def code_command(self, files: Files, path: str, plan: Plan) -> Phase | None:
        return c_code.code_command(files, path, plan)

    def programs(self, files: Files) -> list[str]:
        return c_programs(files)

    def program_build(self, files: Files, plan: Plan) -> ProgramBuild | None:
        """The tree's own build, as the tests' script starts (its folder, so only what changed
        since is built again)."""
        build = top_build(files)
        if build is None:
            return None
        script, folder = build_script(build)
        return ProgramBuild(script=script, folders=(folder,))

    def line_probe(self, path: str, source: str, at: int) -> str | None:
        return line_probes.probe(self.grammar(path), source, at)

    def code_misses(self, source: str, line: int) -> str | None:
        return c_code.code_misses(source, line)

    def outcomes(self, channel: str, log: str, plan: Plan | None = None) -> Outcomes:
        """ctest names, `binary::Suite.Test` of googletest, automake test paths, and the
        Makefile target that reported nothing finer."""
        return read_channel(channel)

    def failure_texts(self, channel: str, log: str, plan: Plan | None = None) -> dict[str, str]:
        """The reports' failures, and each test's stretch of the log (its lookups noted)."""
        return c_failures.failure_texts(channel, log)


class C(CFamily):
    name = "c"
    compiler = "gcc"


class Cpp(CFamily):
    name = "cpp"
    compiler = "g++"

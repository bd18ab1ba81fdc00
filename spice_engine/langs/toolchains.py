"""Which languages' toolchains this process's user can run: each asked once, by running it."""

from __future__ import annotations

import errno
import logging
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import cache, partial
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from spice_engine.langs.base import Toolchain, ToolchainMissing
from spice_engine.langs.c import C, Cpp
from spice_engine.langs.go import GOROOT, machine_go
from spice_engine.langs.java import JDKS, MAVEN
from spice_engine.langs.python_interpreters import find_pythons
from spice_engine.langs.rust import RUSTUP, machine_rust

log = logging.getLogger(__name__)

ANSWER_S = 30.0
"""How long a version command may take: a JVM's start on a loaded machine takes seconds."""


class Reach(BaseModel):
    """Whether one language's toolchain runs as this process's user."""

    model_config = ConfigDict(frozen=True)

    language: str
    """The language's name, as `spice_engine.langs.languages()` has it."""
    available: bool
    reason: str = ""
    """Why not, in one line naming no host path: /healthz shows it, a comment may quote it."""
    detail: str = ""
    """The path and the system's error: for this process's own log only."""


class Unreachable(Exception):
    """A toolchain that does not run here; `reason` is public, `detail` is not."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = " ".join(detail.split())  # one log line, whatever the tool printed


def _unreachable(label: str, what: str, cause: BaseException | None) -> Unreachable:
    """The failure of running `what` (a path, kept out of the reason), classified by its type:
    a missing file, a folder this user may not enter, a command that failed or hung."""
    uid = os.geteuid()
    told = str(cause)
    if isinstance(cause, FileNotFoundError):
        reason = f"no {label} is installed here"
    elif isinstance(cause, PermissionError):
        reason = f"the {label} is not reachable by this process's user (uid {uid})"
    elif isinstance(cause, subprocess.TimeoutExpired):
        reason = f"the {label} did not answer within {ANSWER_S:.0f} s"
    elif isinstance(cause, subprocess.CalledProcessError):
        reason = f"the {label} failed for this process's user (uid {uid}, exit {cause.returncode})"
        told = str(cause.stderr or cause.stdout or "").strip()[-300:]
    elif isinstance(cause, OSError) and cause.errno:
        reason = f"the {label} could not be started ({errno.errorcode.get(cause.errno, '?')})"
    else:
        reason = f"the {label} could not be checked ({type(cause).__name__})"
    return Unreachable(reason, f"{what}: {told}")


def _run(label: str, argv: list[str], env: Mapping[str, str] | None = None) -> None:
    """Run `argv` from `/` (no project's settings in the way), or raise Unreachable."""
    try:
        subprocess.run(
            argv,
            cwd="/",
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=ANSWER_S,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise _unreachable(label, argv[0], exc) from exc


def python_reach(pythons: Mapping[str, Path] | None = None) -> Reach:
    """An interpreter of those `find_pythons` offers runs (the newest that does)."""
    label = "Python interpreter"
    found = find_pythons() if pythons is None else pythons
    if not found:
        return _reach("python", Unreachable(f"no {label} is installed here", "none found"))
    failures = []
    for version in sorted(found, key=lambda v: tuple(map(int, v.split("."))), reverse=True):
        try:
            _run(label, [str(found[version]), "-V"])
            return Reach(language="python", available=True)
        except Unreachable as exc:
            failures.append(exc)
    return _reach("python", failures[0])


def go_reach(goroot: Path = GOROOT) -> Reach:
    """The Go the engine plans with (its VERSION file) and whose `go` it runs."""
    label = "Go toolchain"
    try:
        machine_go(goroot)
        _run(label, [str(goroot / "bin" / "go"), "version"], {"GOTOOLCHAIN": "local"})
    except ToolchainMissing as exc:
        return _reach("go", _unreachable(label, str(goroot), exc.__cause__))
    except Unreachable as exc:
        return _reach("go", exc)
    return Reach(language="go", available=True)


def rust_reach(rustup: Path = RUSTUP) -> Reach:
    """The engine's own question to rustup (`machine_rust`), as this user."""
    try:
        machine_rust(rustup)
    except ToolchainMissing as exc:
        return _reach("rust", _unreachable("Rust toolchain", str(rustup), exc.__cause__))
    return Reach(language="rust", available=True)


def node_reach(node: str = "node") -> Reach:
    """The Node.js on PATH, which serves every project whose own Node.js is not fetched."""
    try:
        _run("Node.js runtime", [shutil.which(node) or node, "--version"])  # its path, for the log
    except Unreachable as exc:
        return _reach("javascript", exc)
    return Reach(language="javascript", available=True)


def java_reach(jdks: Mapping[int, Toolchain] = JDKS, maven: str = MAVEN) -> Reach:
    """Maven, on the first JDK that runs (a JDK missing narrows the Java levels served; only
    none at all makes Java unavailable)."""
    failures = []
    for jdk in jdks.values():
        home = jdk.env.get("JAVA_HOME") or str(Path(jdk.path[0]).parent)
        try:
            _run("Java runtime", [f"{home}/bin/java", "-version"])
            _run("Maven build tool", [maven, "--version"], {"JAVA_HOME": home})
            return Reach(language="java", available=True)
        except Unreachable as exc:
            failures.append(exc)
    missing = Unreachable("no Java runtime is installed here", "no JDK configured")
    return _reach("java", failures[0] if failures else missing)


def compiler_reach(language: str, label: str, program: str) -> Reach:
    """The machine's compiler every C or C++ build of `language` uses (the build tools it
    lacks are fetched from Debian)."""
    try:
        _run(label, [shutil.which(program) or program, "--version"])
    except Unreachable as exc:
        return _reach(language, exc)
    return Reach(language=language, available=True)


def _reach(language: str, failure: Unreachable) -> Reach:
    return Reach(language=language, available=False, reason=failure.reason, detail=failure.detail)


PROBES: dict[str, Callable[[], Reach]] = {
    "python": python_reach,
    "go": go_reach,
    "rust": rust_reach,
    "javascript": node_reach,
    "java": java_reach,
    "c": partial(compiler_reach, C.name, "C compiler", C.compiler),
    "cpp": partial(compiler_reach, Cpp.name, "C++ compiler", Cpp.compiler),
}
"""One probe per language of `spice_engine.langs.languages()` (a test holds them equal)."""


def _safely(language: str, probe: Callable[[], Reach]) -> Reach:
    try:
        return probe()
    except Exception as exc:  # a probe's own bug must not stop a worker's start
        log.exception("checking the %s toolchain failed", language)
        return _reach(language, _unreachable(f"{language} toolchain", "the probe", exc))


@cache
def reachable_languages() -> tuple[Reach, ...]:
    """Every language's reach, probed once per process, side by side (a JVM's start is the
    slowest: about a second)."""
    with ThreadPoolExecutor(max_workers=len(PROBES)) as pool:
        return tuple(pool.map(_safely, PROBES, PROBES.values()))


def unreachable_line(reaches: tuple[Reach, ...]) -> str | None:
    """One log line naming the languages this process cannot run and why, with their paths
    (None: every language runs)."""
    down = [f"{r.language} ({r.reason}; {r.detail})" for r in reaches if not r.available]
    if not down:
        return None
    return "languages this process cannot run: " + ", ".join(down)

"""The programs a tree builds, by name, read from its build files (a C project's
`bin_PROGRAMS`, `add_executable`, `executable`; a Rust package's `[[bin]]` targets): what an
issue's shell example may run (spice_engine.strength.shell_examples). Names only: what is read
is the tree's text, never run, and a name's program is looked for in the build's output, in the
sandbox.
"""

from __future__ import annotations

import configparser
import posixpath
import re

from pydantic import BaseModel, ConfigDict

from spice_engine.langs.base import Files
from spice_engine.langs.manifests import named
from spice_engine.langs.rust_manifests import table, toml

_AUTOMAKE = re.compile(r"^\s*(?:bin|sbin)_PROGRAMS\s*\+?=\s*((?:[^\n\\]|\\\n)*)", re.M)
_CMAKE = re.compile(r"\badd_executable\s*\(\s*([A-Za-z0-9_.+-]+)", re.I)
_MESON = re.compile(r"\bexecutable\s*\(\s*'([A-Za-z0-9_.+-]+)'")
_SETUP_SCRIPT = re.compile(
    r"""['"]\s*([A-Za-z0-9_.-]+)\s*=\s*([A-Za-z0-9_.]+(?::[A-Za-z0-9_.]+)?)\s*['"]"""
)
_TARGET = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_.]*$")
"""`module:function`: what a console script calls (nothing else is ever written into code)."""
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
_TESTISH = re.compile(r"(^|[_-])(test|tests|bench|fuzz|example)s?([_-]|$)", re.I)
"""A test, benchmark, fuzzer or example program: not what a reporter runs."""


class ProgramBuild(BaseModel):
    """How the tree's programs are built in the sandbox, and where they land."""

    model_config = ConfigDict(frozen=True)

    script: str
    """Shell that builds them (its output on standard error; a failed build exits non-zero)."""
    folders: tuple[str, ...]
    """Absolute folders the built programs are found under."""


def c_programs(files: Files) -> list[str]:
    """Installed programs of an automake, CMake or Meson build."""
    found: list[str] = []
    for path in named(files, "Makefile.am", "CMakeLists.txt", "meson.build"):
        text = files.text(path) or ""
        name = posixpath.basename(path)
        if name == "Makefile.am":
            for match in _AUTOMAKE.finditer(text):
                found += match.group(1).replace("\\\n", " ").split()
        else:
            found += (_CMAKE if name == "CMakeLists.txt" else _MESON).findall(text)
    return _kept(found)


def rust_programs(files: Files) -> list[str]:
    """Binary targets of the tree's packages: `[[bin]]` names, and a package's own name where
    it has `src/main.rs`."""
    found: list[str] = []
    for manifest in named(files, "Cargo.toml"):
        data = toml(files, manifest)
        package = str(table(data, "package").get("name") or "")
        bins = data.get("bin")
        for target in bins if isinstance(bins, list) else []:
            if isinstance(target, dict) and isinstance(target.get("name"), str):
                found.append(target["name"])
        main = posixpath.join(posixpath.dirname(manifest), "src/main.rs")
        if package and files.text(main) is not None:
            found.append(package)
    return _kept(found)


def python_programs(files: Files) -> list[str]:
    """Console scripts the tree installs, by name."""
    return _kept(list(python_entry_points(files)))


def python_entry_points(files: Files) -> dict[str, str]:
    """Console script -> the `module:function` it calls: `[project.scripts]` (and Poetry's),
    setup.cfg's `console_scripts`, and those a top `setup.py` lists (read as text, never
    run)."""
    found: dict[str, str] = {}
    data = toml(files, "pyproject.toml")
    for table_keys in (("project", "scripts"), ("tool", "poetry", "scripts")):
        found |= {str(k): str(v) for k, v in table(data, *table_keys).items()}
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(files.text("setup.cfg") or "")
        listed = parser.get("options.entry_points", "console_scripts", fallback="")
    except configparser.Error:
        listed = ""
    for line in listed.splitlines():
        name, _, target = line.partition("=")
        if target.strip():
            found[name.strip()] = target.strip()
    setup = files.text("setup.py") or ""
    at = setup.find("console_scripts")
    if at >= 0:
        found |= dict(_SETUP_SCRIPT.findall(setup[at : at + 2000]))
    return {name: target for name, target in found.items() if _TARGET.match(target)}


def _kept(names: list[str]) -> list[str]:
    return sorted({n for n in names if _NAME.match(n) and not _TESTISH.search(n)})

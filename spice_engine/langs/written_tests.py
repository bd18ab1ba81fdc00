"""Where a test a model writes to catch a survivor goes, in each language, and what the prompt
tells the model of it (spice_engine.strength.catching).

The place is one the language's own test command already runs when given the instance's test
files (and the fix's): a file of the survivor's own package (Go), a test module appended to the
survivor's own file (Rust: unit tests see the module's private items), a class beside the
module's tests (Java), a file beside the test patch's first test (JavaScript, Python). C and C++
have none: a test there is built only once a build file names it, and editing the build is not a
test.
"""

from __future__ import annotations

import posixpath
import re

from pydantic import BaseModel

from spice_engine.langs.base import Files

NAME = "spice_catches_survivor"
"""The written test's name, in each language's form (no repository names a test this)."""


class WrittenPlace(BaseModel, frozen=True):
    path: str
    """The file the written test is (or, `appended`, is added at the end of)."""
    appended: bool = False
    """Added at the end of `path`, the survivor's own source file (a Rust `#[cfg(test)]`
    module), not a file of its own."""
    kind: str
    """What the model is asked to write, said in the prompt."""
    fence: str
    """The code block's language where the test is shown."""


def python_place(test_files: list[str]) -> WrittenPlace:
    """A pytest module beside the test patch's first test (its conftest applies)."""
    first = next((f for f in test_files if f.endswith(".py")), "")
    folder = posixpath.dirname(first) if first else "tests"
    return WrittenPlace(
        path=posixpath.join(folder, f"test_{NAME}.py"),
        kind="a whole pytest test module: imports and one or more test functions",
        fence="python",
    )


_PACKAGE = re.compile(r"^package\s+([A-Za-z_]\w*)", re.MULTILINE)


def go_place(files: Files, path: str) -> WrittenPlace | None:
    """A `_test.go` file of the survivor's own package: its unexported names are in reach."""
    found = _PACKAGE.search(files.text(path) or "") if path.endswith(".go") else None
    if found is None:
        return None
    return WrittenPlace(
        path=posixpath.join(posixpath.dirname(path), f"{NAME}_test.go"),
        kind=(
            f"a whole Go test file of package `{found.group(1)}` (the package under test, so "
            "its unexported names can be used), importing only the standard library and the "
            "module's own packages; name each test function `TestSpice…`"
        ),
        fence="go",
    )


def rust_place(path: str) -> WrittenPlace | None:
    """A `#[cfg(test)]` module at the end of the survivor's own file (`use super::*;`)."""
    if not path.endswith(".rs"):
        return None
    return WrittenPlace(
        path=path,
        appended=True,
        kind=(
            f"one Rust test module, `#[cfg(test)] mod {NAME} {{ use super::*; … }}`, with "
            "`#[test]` functions: it is appended to the end of the file shown, so the file's "
            "private items are in reach; use no crate the package does not already depend on"
        ),
        fence="rust",
    )


_JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
CLASS = "SpiceCatchesSurvivorTest"


def java_place(files: Files, path: str) -> WrittenPlace | None:
    """A test class in the survivor's package, among its module's tests (Surefire finds it)."""
    module, sep, _ = f"/{path}".partition("/src/main/java/")
    found = _JAVA_PACKAGE.search(files.text(path) or "")
    if not sep or found is None:
        return None
    folder = found.group(1).replace(".", "/")
    return WrittenPlace(
        path=posixpath.join(module.strip("/"), "src/test/java", folder, f"{CLASS}.java"),
        kind=(
            f"a whole Java test class `{CLASS}` in package `{found.group(1)}`, written with the "
            "JUnit the module's tests use (see the test patch)"
        ),
        fence="java",
    )


_JS_SUFFIX = re.compile(r"((\.|-|_)(test|spec))?\.[cm]?[jt]sx?$")


def javascript_place(test_files: list[str]) -> WrittenPlace | None:
    """A file beside the test patch's first test, named as it is (`.test.ts`, `.spec.js`, …):
    the runner's own patterns then take it as they take that one."""
    found = next(((f, m) for f in test_files if (m := _JS_SUFFIX.search(f))), None)
    if found is None:
        return None
    first, suffix = found
    return WrittenPlace(
        path=posixpath.join(posixpath.dirname(first), NAME.replace("_", "-") + suffix.group(0)),
        kind=(
            f"a whole test file for the runner and style of `{first}` (its imports and test "
            "functions, the module system it uses), placed beside it"
        ),
        fence="typescript" if ".ts" in suffix.group(0) else "javascript",
    )

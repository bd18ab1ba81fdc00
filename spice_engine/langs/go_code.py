"""Go's compiled code of a package: the compiler's assembly listing (`-gcflags=-S`), positions
stripped, of the package a changed file belongs to (spice_engine.langs.compiled_code).

The listing holds every function and data symbol the package compiles, each with its bytes
and relocations; its positions (`(/testbed/x.go:12)`) are the only part that says where code
came from. A file the package's build leaves out (a build constraint) has no position in it:
then nothing is known. A generic function is compiled where it is instantiated, another
package's code: its lines are not this check's.
"""

from __future__ import annotations

import posixpath
import shlex

from spice_engine.langs.base import TESTBED, Files, Phase, Plan
from spice_engine.langs.compiled_code import CODE, DUMP, START, digest_lines, enclosing
from spice_engine.langs.manifests import named, owner

_FUNCTIONS = ("function_declaration", "method_declaration")


def code_command(files: Files, path: str, plan: Plan) -> Phase | None:
    """`go build -gcflags=-S` of `path`'s package, its listing without positions."""
    if not path.endswith(".go") or path.endswith("_test.go"):
        return None
    roots = sorted({posixpath.dirname(m) for m in named(files, "go.mod")})
    root = owner(path, roots)
    if root is None:
        return None
    package = "./" + posixpath.relpath(posixpath.dirname(path) or ".", root or ".")
    where = f"({TESTBED}/{path}:"
    # The compiler's listing goes to standard error; -dwarf=false leaves out the debug
    # information's symbols (their bytes hold line numbers). Replayed from the build cache
    # when the package's inputs are those of an earlier build.
    script = START + (
        f"cd {shlex.quote(root or '.')} || exit 1\n"
        f"go build -o /dev/null -gcflags='-S -dwarf=false' {shlex.quote(package)} "
        f"2> {CODE}/listing || {{ tail -n 40 {CODE}/listing >&2; exit 1; }}\n"
        f"grep -qF {shlex.quote(where)} {CODE}/listing || "
        "{ echo 'the package compiles none of the file' >&2; exit 1; }\n"
        f"sed -E 's/\\((\\/|<)[^)]*:[0-9]+\\)//g' {CODE}/listing > {DUMP} || exit 1\n"
        + digest_lines()
    )
    return Phase(argv=("sh", "-c", script), env={"GOPROXY": "off", "GOSUMDB": "off"}, channel=True)


def code_misses(source: str, line: int) -> str | None:
    """Lines outside a function's body (a package's constant is compiled where it is used)
    and generic functions' lines are not in the package's own code."""
    chain = enclosing(source, line, "go")
    function = next((n for n in chain if n.type in _FUNCTIONS), None)
    if function is None:
        return "not in a function's body"
    if function.child_by_field_name("type_parameters") is not None:
        return "a generic function (compiled where it is instantiated)"
    receiver = function.child_by_field_name("receiver")
    if receiver is not None and b"[" in receiver.text:
        return "a method of a generic type (compiled where it is instantiated)"
    return None

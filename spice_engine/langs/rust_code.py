"""Rust's compiled code of a source: its library crate's optimised assembly (`cargo rustc
--release --lib -- --emit=asm`), of the package owning the file (spice_engine.langs.compiled_code).

What each crate compiles for itself must hold the line's code: a function codegen'd only where
it is used elsewhere is not (a generic one, an `#[inline]` one, code a `cfg` leaves out of this
build, a trait's default method, a macro's body), so its lines are not known. Small functions
rustc would otherwise inline into other crates only (1.75's cross-crate inlining) are kept in
their crate (`-Zcross-crate-inline-threshold=never`), and panics' source locations left out
(`-Zlocation-detail=none`: a mutant shorter by a `.clone()` moves the columns after it), both
allowed for that crate alone (`RUSTC_BOOTSTRAP=<crate>`: its dependencies' build scripts see
a stable compiler, as in the tests' builds). Overflow checks and debug assertions stay on, as
in the tests' builds. The dependency information must name the file: a
file of a binary target only is no part of the library.

Cost: the first check of an instance builds every dependency optimised (once, in the job's
target folder); each one after recompiles the crate alone, with one codegen unit.
"""

from __future__ import annotations

import posixpath
import shlex
from typing import Any

from spice_engine.langs.base import ENV, TESTBED, Files, Phase, Plan
from spice_engine.langs.compiled_code import (
    DUMP,
    START,
    attributes,
    digest_lines,
    enclosing,
)
from spice_engine.langs.manifests import named, owner
from spice_engine.langs.rust_manifests import table, toml

FLAGS = "--emit=asm -C codegen-units=1 -Zlocation-detail=none -Zcross-crate-inline-threshold=never"
# Labels of anonymous constants carry a hash of the crate's own (of its sources, so the
# mutant's differs); their contents and their order are kept.
NORMALISE = r"/^\s*\.(file|ident)\b/d; s/\.Lanon\.[0-9a-f]+\./.Lanon./g"


def _at(root: str, name: str) -> str:
    return posixpath.join(root, name) if root else name


def code_command(files: Files, path: str, plan: Plan, roots: list[str]) -> Phase | None:
    """The library of the package owning `path`, compiled optimised to assembly."""
    packages = sorted({posixpath.dirname(m) for m in named(files, "Cargo.toml")})
    package, root = owner(path, packages), owner(path, roots)
    if package is None or root is None or not path.endswith(".rs"):
        return None
    data = toml(files, _at(package, "Cargo.toml"))
    name = str(table(data, "package").get("name") or "")
    if not name:
        return None
    crate = str(table(data, "lib").get("name") or name.replace("-", "_"))
    relative = posixpath.relpath(path, root or ".")
    lock = shlex.quote(_at(f"{ENV}/lock", _at(root, "Cargo.lock")))
    deps = '"$CARGO_TARGET_DIR"/release/deps'
    script = START + (
        f"cd {shlex.quote(root or '.')} || exit 1\n"
        # As the tests' command does: the environment's lockfile where the tree's names
        # crates the environment lacks.
        f"[ -e Cargo.lock ] || cp {lock} . 2>/dev/null\n"
        f"cargo fetch --offline -q 2>/dev/null || cp -f {lock} . 2>/dev/null\n"
        f"rm -f {deps}/{crate}-*.s\n"
        # Newer than the last build's output whatever the clock's grain: never taken as fresh.
        f"touch {shlex.quote(f'{TESTBED}/{path}')}\n"
        f"RUSTC_BOOTSTRAP={crate} cargo rustc --offline --release -p {shlex.quote(name)} --lib "
        f"-- {FLAGS} >&2 || exit 1\n"
        f"set -- {deps}/{crate}-*.s\n"
        '[ "$#" = 1 ] && [ -f "$1" ] || { echo "no assembly written" >&2; exit 1; }\n'
        # The dependency information's own line for each source (relative to the workspace
        # when cargo gave rustc a relative path).
        f"grep -qxF -e {shlex.quote(f'{TESTBED}/{path}:')} -e {shlex.quote(f'{relative}:')} "
        '"${1%.s}.d" || '
        "{ echo 'the library compiles none of the file' >&2; exit 1; }\n"
        f'sed -E {shlex.quote(NORMALISE)} "$1" > {DUMP} || exit 1\n' + digest_lines()
    )
    return Phase(
        argv=("sh", "-c", script),
        # Optimised, but with the checks the tests' (dev) profile compiles in: an overflow or
        # a `debug_assert!` a mutant changes is a difference there, not optimised away.
        env={
            "CARGO_NET_OFFLINE": "true",
            "CARGO_PROFILE_RELEASE_DEBUG": "0",
            "CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS": "true",
            "CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS": "true",
        },
        channel=True,
    )


def _generic(node: Any) -> bool:
    """Type parameters beyond lifetimes, or an `impl Trait` argument."""
    found = node.child_by_field_name("type_parameters")
    if found is not None and any(c.type != "lifetime_parameter" for c in found.named_children):
        return True
    parameters = node.child_by_field_name("parameters")
    return parameters is not None and b"impl " in parameters.text


def code_misses(source: str, line: int) -> str | None:
    chain = enclosing(source, line, "rust")
    functions = [n for n in chain if n.type == "function_item"]
    if not functions:
        return "not in a function's body"
    for node in chain:
        if node.type in ("trait_item", "macro_definition"):
            return f"in a {node.type.replace('_', ' ')} (compiled where it is used)"
        if node.type in ("function_item", "impl_item") and _generic(node):
            return "a generic function (compiled where it is instantiated)"
        said = attributes(node)
        if "cfg" in said:
            return "under a `cfg` attribute (another configuration may build it)"
        if node.type == "function_item" and "inline" in said:
            return "an `#[inline]` function (compiled where it is used)"
    modifiers = next((c for c in functions[0].children if c.type == "function_modifiers"), None)
    if modifiers is not None and b"async" in modifiers.text:
        return "an async function (its body is compiled where it is polled)"
    return None

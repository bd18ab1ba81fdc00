"""Java's compiled code of a source: the class files javac writes for its package, compiled by
the build (Maven, offline, as the tests' run compiles) without debug attributes (`-g:none`:
no line or variable tables, no source file name), inner and anonymous classes included
(spice_engine.langs.compiled_code).

javac folds only constant expressions (`2 * 3`, `(double) 1`), so fewer mutants are found the
fix's than by an optimising compiler; what it writes holds every method, lambda, annotation and
constant of the classes, generics erased: a class's bytes are all its code.
"""

from __future__ import annotations

import posixpath
import shlex

from spice_engine.langs.base import JOB, Files, Phase, Plan
from spice_engine.langs.compiled_code import DUMP, START, digest_lines

MAIN = "src/main/java/"


def code_command(files: Files, path: str, plan: Plan, prelude: str) -> Phase | None:
    """`mvn -o compile` of `path`'s module (and what it needs), its package's classes digested;
    `prelude` the tests' own (the javac wrapper, the `mvn` function)."""
    head, sep, rest = f"/{path}".partition(f"/{MAIN}")
    if not sep or not path.endswith(".java") or plan.left_out.keys() & {head.strip("/")}:
        return None
    module = head.strip("/")
    classes = posixpath.join(module, "target/classes", posixpath.dirname(rest))
    own = posixpath.join(classes, posixpath.basename(rest)[: -len(".java")] + ".class")
    select = f"-pl {shlex.quote(module)} -am " if module else ""
    # The tests' javac wrapper kept, `-g:none` last (javac's last -g wins). The module's
    # classes removed first: an incremental build that missed the change would leave the
    # fix's classes to be read as the mutant's.
    script = START + (
        prelude
        + f"mv {JOB}/bin/javac {JOB}/bin/javac-levels || exit 1\n"
        + f"printf '#!/bin/sh\\nexec {JOB}/bin/javac-levels \"$@\" -g:none\\n' > {JOB}/bin/javac\n"
        + f"chmod +x {JOB}/bin/javac\n"
        + f"rm -rf {shlex.quote(posixpath.join(module, 'target/classes'))}\n"
        + f"mvn -o -q compile {select}>&2 || exit 1\n"
        + f"[ -f {shlex.quote(own)} ] || {{ echo 'no class of the file' >&2; exit 1; }}\n"
        + f"for f in {shlex.quote(classes)}/*.class; do\n"
        + '  printf \'%s \' "${f##*/}"; sha256sum < "$f" || exit 1\n'
        + f"done > {DUMP}\n"
        + digest_lines()
    )
    return Phase(argv=("sh", "-c", script), channel=True)

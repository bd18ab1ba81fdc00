"""A line probe in every compiled language, with its real compiler: the probed program builds
(warnings as errors where the language has them), every line keeps its number, and it fails
exactly when the probed line runs (spice_engine.langs.line_probes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spice_engine.langs.line_probes import probe
from tests.program_builds import build_program

# Each program: `pick(n)` whose line marked PROBED runs only for n > 1, called with the count of
# command-line arguments (no argument: not run; two: run).
PROGRAMS = {
    "go": (
        "main.go",
        'package main\n\nimport "os"\n\nfunc pick(n int) int {\n\tif n > 1 {\n'
        "\t\tn = n * 2 // PROBED\n\t}\n\treturn n\n}\n\n"
        "func main() {\n\tos.Exit(pick(len(os.Args)) - pick(len(os.Args)))\n}\n",
    ),
    "rust": (
        "main.rs",
        "#![deny(warnings)]\nfn pick(n: usize) -> usize {\n    if n > 1 {\n"
        "        n * 2 // PROBED\n    } else {\n        n\n    }\n}\n\n"
        "fn main() {\n    let n = std::env::args().count();\n"
        "    std::process::exit((pick(n) - pick(n)) as i32);\n}\n",
    ),
    "c": (
        "main.c",
        "static int pick(int n) {\n  switch (n) {\n  case 3:\n    n = n * 2; /* PROBED */\n"
        "    break;\n  default:\n    break;\n  }\n  return n;\n}\n\n"
        "int main(int argc, char **argv) {\n  (void)argv;\n  return pick(argc) - pick(argc);\n}\n",
    ),
    "cpp": (
        "main.cpp",
        "static int pick(int n) {\n  if (n > 1) {\n    auto m = n * 2;  // PROBED\n"
        "    return m;\n  }\n  return n;\n}\n\n"
        "int main(int argc, char **) { return pick(argc) - pick(argc); }\n",
    ),
    "java": (
        "Main.java",
        "public class Main {\n  static int pick(int n) {\n    if (n > 1) {\n"
        "      int m = n * 2; // PROBED\n      return m;\n    }\n    return n;\n  }\n\n"
        "  public static void main(String[] args) {\n"
        "    System.exit(pick(args.length + 1) - pick(args.length + 1));\n  }\n}\n",
    ),
    "javascript": (
        "main.js",
        "'use strict';\nfunction pick(n) {\n  if (n > 1) {\n    const m = n * 2; // PROBED\n"
        "    return m;\n  }\n  return n;\n}\n\n"
        "const n = process.argv.length - 1;\nprocess.exit(pick(n) - pick(n));\n",
    ),
}


BRANCHES = {
    "c": ("  switch (n) {", "  if (n > 1) return n * 3;\n  switch (n) {"),
    "cpp": ("  if (n > 1) {", "  if (n > 1) return n * 3;\n  if (n > 1) {"),
    "java": (
        "    if (n > 1) {",
        "    if (n == 0) return 0; else if (n > 1) return n * 3;\n    if (n > 1) {",
    ),
    "javascript": ("  if (n > 1) {", "  if (n > 1) return n * 3;\n  if (n > 1) {"),
    "go": (
        "\tif n > 1 {",
        "\tif n < 2 {\n\t\treturn n\n\t} else if n > 3 {\n\t\treturn n\n\t}\n\tif n > 1 {",
    ),
    "rust": ("    if n > 1 {", "    if n < 2 { n } else if n > 3 { n } else if n > 1 {"),
}
"""Each program with a branch standing alone before its probed line: (what it replaces, with
what); the probe goes at the `3`."""


@pytest.mark.parametrize("grammar", sorted(PROGRAMS))
def test_a_probed_program_builds_and_fails_only_where_the_line_runs(
    grammar: str, tmp_path: Path
) -> None:
    name, source = PROGRAMS[grammar]
    _check(grammar, name, source, _first_token_of(source, "PROBED"), tmp_path)


@pytest.mark.parametrize("grammar", sorted(BRANCHES))
def test_a_lone_branch_is_probed_inside_braces_put_around_it(grammar: str, tmp_path: Path) -> None:
    """`if (n > 1) return n * 3;` and `else if n > 3` after `if n < 2`: a probe before the
    first `if` would fire whenever it runs; inside the branch it fires only when the branch
    does (not for n = 1, which the first branch returns)."""
    name, source = PROGRAMS[grammar]
    branch = BRANCHES[grammar]
    source = source.replace(branch[0], branch[1])
    _check(grammar, name, source, source.encode().index(b"3"), tmp_path)


def _first_token_of(source: str, marker: str) -> int:
    data = source.encode()
    line_start = data.rindex(b"\n", 0, data.index(marker.encode())) + 1
    return line_start + len(data[line_start:]) - len(data[line_start:].lstrip())


def _check(grammar: str, name: str, source: str, at: int, tmp_path: Path) -> None:
    probed = probe(grammar, source, at)
    assert probed is not None and probed != source
    assert probed.count("\n") == source.count("\n")  # every line where it was
    (tmp_path / name).write_text(probed)
    run = build_program(grammar, tmp_path, name)
    if run is None:
        pytest.skip(f"no {grammar} compiler on this machine")
    quiet = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert quiet.returncode == 0, quiet.stderr  # the line does not run: nothing fails
    loud = subprocess.run([*run, "a", "b"], capture_output=True, text=True, timeout=60)
    assert loud.returncode != 0  # the probe fired


def test_a_line_in_no_body_of_statements_gets_no_probe() -> None:
    source = 'package a\n\nconst Limit = 3\n\nvar names = []string{\n\t"x",\n}\n'
    assert probe("go", source, source.index("3")) is None
    assert probe("go", source, source.index('"x"')) is None
    assert probe("python", "x = 1\n", 4) is None  # Python's tests are watched by our plugin


def test_a_case_label_is_never_where_the_probe_goes() -> None:
    """A probe before `case 1:` sits where no jump lands (so it would never fire): the
    switch around it is probed instead."""
    source = "int f(int y) {\n  switch (y) {\n  case 1:\n    return 2;\n  }\n  return y;\n}\n"
    probed = probe("c", source, source.index("1:"))
    assert probed is not None
    assert probed.splitlines()[1] == "  __builtin_trap(); switch (y) {"


DIRECTIVES = (
    "static int pick(int n) {\n  int r = n;\n#ifdef SPICE_NEVER_DEFINED\n  r = n * 3;\n#else\n"
    "  if (n > 1)\n    r = n * 5;\n#endif\n  return r;\n}\n\n"
    "int main(int argc, char **argv) {\n  (void)argv;\n  return pick(argc) - pick(argc);\n}\n"
)


def test_a_probe_goes_inside_a_preprocessor_branch(tmp_path: Path) -> None:
    """fmt-3729's survivors sit in `# ifdef _WIN32` / `# else` branches: a probe before the
    directive broke the build. Inside the branch, the one this build leaves out keeps its probe
    out (never fires), the one it builds fires when its code runs."""
    left_out = probe("c", DIRECTIVES, DIRECTIVES.index("3"))
    assert left_out is not None and "__builtin_trap(); r = n * 3;" in left_out
    (tmp_path / "main.c").write_text(left_out)
    run = build_program("c", tmp_path, "main.c")
    if run is None:
        pytest.skip("no c compiler on this machine")
    assert subprocess.run([*run, "a", "b"], timeout=60).returncode == 0  # not built: silent
    (tmp_path / "built").mkdir()
    _check("c", "main.c", DIRECTIVES, DIRECTIVES.index("5"), tmp_path / "built")


def test_no_probe_goes_before_a_directive_or_at_file_scope() -> None:
    source = "#ifdef X\nint g = 3;\n#endif\nint f(void) {\n#define Y 4\n  return Y;\n}\n"
    assert probe("c", source, source.index("3")) is None
    probed = probe("c", source, source.index("4"))
    assert (
        probed is None or "#define Y 4" in probed.splitlines()
    )  # the directive still begins its line

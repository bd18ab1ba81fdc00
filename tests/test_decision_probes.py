"""A decision probe in every compiled language, with its real compiler: the probed program
builds, every line keeps its number, and it fails exactly when the mutant's expression would
take another value than the fix's there (spice_engine.langs.decision_probes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spice_engine.langs.decision_probes import probe
from tests.program_builds import build_program

# Each program: `pick(n)` deciding `n > 1 && n < 9`, called with the count of command-line
# arguments (the program's own name included): every program exits 0 whatever it decides.
PROGRAMS = {
    "go": (
        "main.go",
        'package main\n\nimport "os"\n\nfunc pick(n int) int {\n\tif n > 1 && n < 9 {\n'
        "\t\treturn 1\n\t}\n\treturn 0\n}\n\n"
        "func main() {\n\tos.Exit(pick(len(os.Args)) - pick(len(os.Args)))\n}\n",
    ),
    "rust": (
        "main.rs",
        "#![deny(warnings)]\nfn pick(n: usize) -> usize {\n    if n > 1 && n < 9 {\n"
        "        1\n    } else {\n        0\n    }\n}\n\n"
        "fn main() {\n    let n = std::env::args().count();\n"
        "    std::process::exit((pick(n) - pick(n)) as i32);\n}\n",
    ),
    "c": (
        "main.c",
        "static int pick(int n) {\n  if (n > 1 && n < 9)\n    return 1;\n  return 0;\n}\n\n"
        "int main(int argc, char **argv) {\n  (void)argv;\n  return pick(argc) - pick(argc);\n}\n",
    ),
    "cpp": (
        "main.cpp",
        "static int pick(int n) {\n  if (n > 1 && n < 9) {\n    return 1;\n  }\n  return 0;\n}\n\n"
        "int main(int argc, char **) { return pick(argc) - pick(argc); }\n",
    ),
    "java": (
        "Main.java",
        "public class Main {\n  static int pick(int n) {\n    if (n > 1 && n < 9) {\n"
        "      return 1;\n    }\n    return 0;\n  }\n\n"
        "  public static void main(String[] args) {\n"
        "    System.exit(pick(args.length + 1) - pick(args.length + 1));\n  }\n}\n",
    ),
}


def _run(grammar: str, name: str, probed: str, tmp_path: Path) -> list[int]:
    """The probed program's exit codes run with no argument (n = 1) and with two (n = 3)."""
    (tmp_path / name).write_text(probed)
    run = build_program(grammar, tmp_path, name)
    if run is None:
        pytest.skip(f"no {grammar} compiler on this machine")
    return [
        subprocess.run([*run, *args], capture_output=True, timeout=60).returncode
        for args in ([], ["a", "b"])
    ]


@pytest.mark.parametrize("grammar", sorted(PROGRAMS))
def test_a_probe_fails_only_where_the_mutant_decides_otherwise(
    grammar: str, tmp_path: Path
) -> None:
    """`n > 1` → `n >= 1` decides otherwise at n = 1 only: the probed program fails there and
    runs as the fix does at n = 3."""
    name, fixed = PROGRAMS[grammar]
    found = probe(grammar, fixed, fixed.replace("n > 1", "n >= 1"))
    assert found is not None and found.differ == "decide otherwise"
    assert found.expression.replace("(", "").replace(")", "") == "n > 1 && n < 9"
    assert found.source.count("\n") >= fixed.count("\n")
    assert found.source.splitlines()[: fixed.count("\n") - 1] == [
        line if "n > 1" not in line else found.source.splitlines()[i]
        for i, line in enumerate(fixed.splitlines()[: fixed.count("\n") - 1])
    ]  # only the decision's line changed; a helper, where one is needed, after every line
    low, high = _run(grammar, name, found.source, tmp_path)
    assert low != 0 and high == 0


@pytest.mark.parametrize("grammar", sorted(PROGRAMS))
def test_a_flip_the_rest_of_its_decision_masks_is_no_difference(
    grammar: str, tmp_path: Path
) -> None:
    """`n < 9` → `n >= 9` flips at every n, but `n > 1` is false at n = 1, where `&&` never
    reads it: the decision is compared, not the flipped comparison, so only n = 3 fails."""
    name, fixed = PROGRAMS[grammar]
    found = probe(grammar, fixed, fixed.replace("n < 9", "n >= 9"))
    assert found is not None
    low, high = _run(grammar, name, found.source, tmp_path)
    assert low == 0 and high != 0


def test_c_compares_a_value_in_no_decision(tmp_path: Path) -> None:
    """An array's first element `0` → `1`, shifted out before it is read: the value differs
    wherever it runs, so the probe fails whenever it does (masked or not)."""
    fixed = (
        "static int pick(int n) {\n  unsigned char u[2] = {0};\n  u[0] = (unsigned char)"
        "(u[0] << 8);\n  return u[0] + n - n;\n}\n\n"
        "int main(int argc, char **argv) {\n  (void)argv;\n  return argc > 1 ? pick(argc) : 0;\n}\n"
    )
    found = probe("c", fixed, fixed.replace("{0}", "{1}"))
    assert found is not None and found.differ == "take another value" and found.expression == "0"
    assert found.source.count("\n") == fixed.count("\n")
    low, high = _run("c", "main.c", found.source, tmp_path)
    assert low == 0 and high != 0


def test_a_negated_call_compares_the_call() -> None:
    """`x.m()` → `!x.m()` in Java: the truth value is the mutant's negation; the fix's call is
    compared with it."""
    fixed = PROGRAMS["java"][1].replace("n > 1 && n < 9", "Boolean.valueOf(n > 1).booleanValue()")
    mutant = fixed.replace("Boolean.valueOf", "!Boolean.valueOf")
    found = probe("java", fixed, mutant)
    assert found is not None and found.expression == "Boolean.valueOf(n > 1).booleanValue()"
    assert "spiceProbeSame((Boolean.valueOf(n > 1).booleanValue()), (!Boolean" in found.source


@pytest.mark.parametrize(
    ("grammar", "fixed", "mutant"),
    [
        ("go", "package p\n\nfunc f(n int) int {\n\tn = n + 1\n\treturn n\n}\n", "n + 2"),
        ("c", "int f(int n) {\n  if (n++ > 1) return 1;\n  return 0;\n}\n", "n++ >= 1"),
        ("c", "static int k = 1 + 2;\n", "1 - 2"),
        ("c", "#if X > 1\nint k;\n#endif\n", "X >= 1"),
        ("java", "interface I {\n  static boolean f(int n) { return n > 1; }\n}\n", "n >= 1"),
        ("go", "package p\n\nfunc f(n int) {\n\tg(n)\n}\n", ""),
    ],
)
def test_no_probe_where_it_cannot_compare(grammar: str, fixed: str, mutant: str) -> None:
    """A value outside C and C++, an increment evaluated twice, a file-scope initializer and a
    directive's line in C, Java with no top-level class for the helper, a removed statement."""
    old = {"n + 2": "n + 1", "n++ >= 1": "n++ > 1", "1 - 2": "1 + 2", "X >= 1": "X > 1"}
    changed = fixed.replace(old[mutant], mutant) if mutant in old else fixed
    if grammar == "java":
        changed = fixed.replace("n > 1", "n >= 1")
    if not mutant:
        changed = fixed.replace("\tg(n)\n", "")
    assert changed != fixed
    assert probe(grammar, fixed, changed) is None


# `even(n)`: `n = n / 2 * 2;` changes n only when it is odd; the program's argument count is n.
KEPT = {
    "go": (
        "main.go",
        'package main\n\nimport "os"\n\nfunc even(n int) int {\n\tn = n / 2 * 2\n\treturn 0 * n\n}'
        "\n\nfunc main() {\n\tos.Exit(even(len(os.Args)))\n}\n",
    ),
    "c": (
        "main.c",
        "static int even(int n) {\n  n = n / 2 * 2;\n  return 0 * n;\n}\n\n"
        "int main(int argc, char **argv) {\n  (void)argv;\n  return even(argc);\n}\n",
    ),
    "cpp": (
        "main.cpp",
        "#include <string>\nstatic int even(int n) {\n  std::string s(n, 'x');\n"
        "  s = std::string(n / 2 * 2, 'x');\n  return 0 * (int)s.size();\n}\n\n"
        "int main(int argc, char **) { return even(argc); }\n",
    ),
    "java": (
        "Main.java",
        "public class Main {\n  static int even(int n) {\n    n = n / 2 * 2;\n    return 0 * n;\n  }"
        "\n\n  public static void main(String[] args) {\n    System.exit(even(args.length + 1));\n"
        "  }\n}\n",
    ),
}


@pytest.mark.parametrize("grammar", sorted(KEPT))
def test_an_assignment_left_out_is_probed_for_changing_its_target(
    grammar: str, tmp_path: Path
) -> None:
    """Left out, `n = n / 2 * 2` differs from the fix only where n is odd: the probed program
    fails at n = 1 (no argument) and runs as the fix at n = 2 (one)."""
    from spice_engine.langs.kept_probes import probe as kept

    name, fixed = KEPT[grammar]
    line = next(x for x in fixed.splitlines() if "/ 2 * 2" in x)
    statement = line.strip()
    mutant = fixed.replace(statement, "", 1)
    found = kept(grammar, fixed, mutant)
    assert found is not None and found.differ in ("change what `n` holds", "change what `s` holds")
    assert found.expression == statement
    probed = found.source.splitlines()
    moved = [
        i
        for i, x in enumerate(fixed.splitlines()[:-1])
        if probed[i] != x and x != line and not x.startswith("package ")
    ]
    assert not moved  # only the statement's line (and Go's package clause) changed
    (tmp_path / name).write_text(found.source)
    run = build_program(grammar, tmp_path, name)
    if run is None:
        pytest.skip(f"no {grammar} compiler on this machine")
    odd = subprocess.run(run, capture_output=True, timeout=60).returncode
    even = subprocess.run([*run, "a"], capture_output=True, timeout=60).returncode
    assert odd != 0 and even == 0


def test_no_assignment_probe_for_several_targets_an_index_or_another_operator() -> None:
    from spice_engine.langs.kept_probes import probe as kept

    go = "package p\n\nfunc f(a []int, i int) {\n\t{stmt}\n}\n"
    for stmt in ("a, i = a[1:], 0", "a[i] = 1", "i += 1", "g(a)"):
        fixed = go.replace("{stmt}", stmt)
        assert kept("go", fixed, fixed.replace(stmt, "")) is None, stmt


VALUES = {
    "java": (
        "Main.java",
        "public class Main {\n  static int pick(int n) {\n    int r = n % 2;\n    return r * 0;\n"
        "  }\n\n  public static void main(String[] args) {\n"
        "    System.exit(pick(args.length + 1));\n  }\n}\n",
    ),
    "rust": (
        "main.rs",
        "#![deny(warnings)]\nfn pick(n: usize) -> usize {\n    let r = n % 2;\n    r * 0\n}\n\n"
        "fn main() {\n    std::process::exit(pick(std::env::args().count()) as i32);\n}\n",
    ),
    "c": (
        "main.c",
        "static int pick(int n) {\n  int r = n % 2;\n  return r * 0;\n}\n\n"
        "int main(int argc, char **argv) {\n  (void)argv;\n  return pick(argc);\n}\n",
    ),
}


@pytest.mark.parametrize("grammar", sorted(VALUES))
def test_a_value_in_no_decision_is_compared_where_a_helper_can(
    grammar: str, tmp_path: Path
) -> None:
    """`n % 2` → `n % 3` gives the same 1 at n = 1 and another value at n = 3: the probed
    program runs at n = 1 and fails at n = 3."""
    name, fixed = VALUES[grammar]
    found = probe(grammar, fixed, fixed.replace("n % 2", "n % 3"))
    assert found is not None and found.differ == "take another value"
    assert found.expression == "n % 2"
    (tmp_path / name).write_text(found.source)
    run = build_program(grammar, tmp_path, name)
    if run is None:
        pytest.skip(f"no {grammar} compiler on this machine")
    same = subprocess.run(run, capture_output=True, timeout=60).returncode
    other = subprocess.run([*run, "a", "b"], capture_output=True, timeout=60).returncode
    assert same == 0 and other != 0


@pytest.mark.parametrize(
    ("grammar", "fixed", "old", "new"),
    [
        (
            "rust",
            "fn f(n: u8) -> u8 {\n    match n {\n        1 => 0,\n        _ => 1,\n    }\n}\n",
            "1 =>",
            "2 =>",
        ),
        (
            "c",
            "int f(int n) {\n  switch (n) {\n  case 1:\n    return 0;\n  }\n  return 1;\n}\n",
            "case 1",
            "case 2",
        ),
        (
            "java",
            "class A {\n  int f(int n) {\n    switch (n) {\n      case 1: return 0;\n"
            "    }\n    return 1;\n  }\n}\n",
            "case 1",
            "case 2",
        ),
        ("rust", 'fn f(n: u8) -> String {\n    format!("{}", n + 1)\n}\n', "n + 1", "n + 2"),
    ],
)
def test_no_value_probe_where_a_constant_or_no_expression_is_wanted(
    grammar: str, fixed: str, old: str, new: str
) -> None:
    """A `match` arm's pattern, a `case` label, a macro's tokens."""
    assert probe(grammar, fixed, fixed.replace(old, new)) is None

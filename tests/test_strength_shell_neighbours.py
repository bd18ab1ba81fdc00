"""Commands next to the issue's own (spice_engine.strength.shell_neighbours): which arguments
are left out, and, end to end in the real sandbox, a survivor of a C program's fix that the
tests never run and the reporter's own command cannot tell apart (it fails on the bad input
under both), shown on the same command with the bad input left out."""

from __future__ import annotations

from pathlib import Path

from spice_engine.strength.shell_neighbours import neighbours
from tests.compiled_code_support import c_project_measured


def test_each_argument_that_stands_alone_is_left_out_in_turn() -> None:
    jq = "jq -n --jsonargs '$ARGS' 123 'invalid json'"
    assert neighbours([jq], ["jq"]) == [
        "jq --jsonargs '$ARGS' 123 'invalid json'",
        "jq -n --jsonargs '$ARGS' 'invalid json'",
        "jq -n --jsonargs '$ARGS' 123",
    ]
    # `-m` may take `1` (the program's to say): neither is left out alone.
    assert neighbours(["rg -m 1 -A 1 d rgtest.txt"], ["rg"]) == [
        "rg -m 1 -A 1 rgtest.txt",
        "rg -m 1 -A 1 d",
    ]
    assert neighbours(["echo a b | rg --color=never -w x"], ["rg"]) == [
        "echo a b | rg -w x"  # only the program's own arguments; an option with its value
    ]
    assert neighbours(["jq implode <<< '[1]'"], ["jq"]) == ["jq <<< '[1]'"]  # the feed stays


def test_what_is_more_than_words_or_runs_no_program_has_no_neighbour() -> None:
    for command in (
        "jq . in.json > out.json",  # another redirection
        'jq -n "$(cat filter)" x',  # a substitution
        "jq . a b && echo done",
        "cat > x.json <<'EOF'\n{}\nEOF",
        "mkdir tmp",
        "FOO=1 jq . x",
        "jq -n 'unclosed",
    ):
        assert neighbours([command], ["jq"]) == [], command
    # None twice, none the issue gives (`jq . a b` without `b`).
    assert neighbours(["jq . a", "jq . a b"], ["jq"]) == ["jq a", "jq .", "jq a b", "jq . b"]


CMAKE = """cmake_minimum_required(VERSION 3.10)
project(sum C)
enable_testing()
add_library(total total.c)
add_executable(sum main.c)
target_link_libraries(sum total)
add_executable(total_test tests/total_test.c)
target_link_libraries(total_test total)
add_test(NAME total-test COMMAND total_test)
"""
MAIN = """#include <stdio.h>
int total(int n, char **words, long *out);
int main(int argc, char **argv) {
  long sum;
  if (total(argc - 1, argv + 1, &sum)) {
    fprintf(stderr, "not a number\\n");
    return 2;
  }
  printf("%ld\\n", sum);
  return 0;
}
"""
BUG = """#include <stdlib.h>
int total(int n, char **words, long *out) {
  long sum = 0;
  for (int i = 0; i < n; i++)
    sum += atol(words[i]);
  *out = sum;
  return 0;
}
"""
FIX = """#include <stdlib.h>
int total(int n, char **words, long *out) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    char *end;
    long v = strtol(words[i], &end, 10);
    if (end == words[i] || *end != '\\0')
      return 1;
    sum += v;
  }
  *out = sum;
  return 0;
}
"""
WEAK = """int total(int n, char **words, long *out);
int main(void) {
  char *words[] = {"x"};
  long sum;
  return total(1, words, &sum) != 1;
}
"""
ISSUE = "sum takes a word for 0\n\n```console\n$ ./sum 2 x\n2\n```\nIt should refuse `x`.\n"


def test_a_survivor_only_the_command_without_its_bad_input_tells_apart_is_shown(
    tmp_path: Path,
) -> None:
    got = c_project_measured(
        tmp_path,
        {"CMakeLists.txt": CMAKE, "main.c": MAIN, "total.c": BUG},
        {"total.c": FIX},
        {"tests/total_test.c": WEAK},
        ISSUE,
    )
    # The test gives only `x`: the sum is never added to. `sum += v` left out, the reporter's
    # `sum 2 x` still refuses `x`; `sum 2` prints 0 where the fix prints 2.
    left_out = [m for m in got.survivors if m.change == "`sum += v;` removed"]
    assert left_out, [(m.change, m.verdict, m.reason) for m in got.mutants] + got.skipped
    seen = left_out[0].issue_example
    assert seen is not None and seen.near, left_out[0].reason
    assert (seen.statement, seen.fix, seen.survivor) == ("sum 2", "2", "0")
    assert left_out[0].shown and left_out[0].difference == "issue"
    assert "the issue's command with an argument left out, `sum 2`," in left_out[0].reason
    # No survivor is told apart on the reporter's own command: it refuses `x` under each.
    assert all(m.issue_example.near for m in got.survivors if m.issue_example is not None)

"""An integer constant that only ever stands for "true" is not moved by one: jq-3165's
`int sandbox = 1;`, read only by `if (sandbox)`, survived as `1` → `2` and was shown as a wrong
fix. The fix comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from tests.strength_sites_support import fix_sites

BEFORE = """static jv f_snapshot(jv input, const char *name) {
  return input;
}
"""
AFTER = """static jv f_snapshot(jv input, const char *name) {
  int sandbox = 1;
  int written = 1;
  int *count = &written;
  int tries = 1;
  const char *enable = getenv("JQ_ENABLE_SNAPSHOT");
  if (enable && *enable)
    sandbox = 0;
  while (1) {
    if (sandbox || tries > 3)
      break;
    tries++;
  }
  return sandbox ? input : save(input, name, *count);
}
"""
"""jq-3165, cut down: `sandbox` is only tested; `written` has its address taken and `tries` is
compared, so both keep their mutants; `while (1)` is a condition of its own."""


def test_a_flag_set_to_one_and_only_tested_keeps_no_mutant_that_is_as_true(
    tmp_path: Path,
) -> None:
    for grammar, path in (("c", "src/builtin.c"), ("cpp", "src/builtin.cpp")):
        sites = fix_sites(tmp_path / grammar, path, (BEFORE, AFTER), grammar)
        assert sites == [
            "3 `1` → `2`",  # `written`: its address is taken
            "5 `1` → `2`",  # `tries`: compared with 3
            "7 `&& *enable` → `|| *enable`",
            "8 `sandbox = 0;` removed",  # the flag left as it was
            "8 `0` → `1`",  # 0 → 1 turns false into true
            "10 `|| tries > 3` → `&& tries > 3`",
            "10 `> 3` → `>= 3`",
            "10 `3` → `4`",
            "12 `tries++;` removed",
        ], grammar

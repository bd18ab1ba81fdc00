"""An array one element longer holds the same elements: jq-3161's `unsigned char unicode[4]`
→ `[5]` survived and was shown as a wrong fix. An array something measures keeps its mutant.
The fix comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from tests.strength_sites_support import fix_sites

BEFORE = """static jv f_urid(jv input) {
  return input;
}
"""
AFTER = """static jv f_urid(jv input) {
  unsigned char unicode[4] = {0};
  char line[8];
  int grid[2][3];
  memset(line, 0, sizeof line);
  unicode[0] = line[0] + grid[1][2];
  return input;
}
"""


def test_a_declared_array_length_moves_only_where_the_array_is_measured(tmp_path: Path) -> None:
    for grammar, path in (("c", "src/builtin.c"), ("cpp", "src/builtin.cpp")):
        sites = fix_sites(tmp_path / grammar, path, (BEFORE, AFTER), grammar)
        lengths = [s for s in sites if s.split()[0] in ("2", "3", "4")]
        # `unicode` and `grid` are never measured; `line` is (`sizeof line`). The initial
        # value is a value: it moves.
        assert lengths == ["2 `0` → `1`", "3 `8` → `9`"], (grammar, sites)
        assert "6 `0` → `1`" in sites and "6 `1` → `2`" in sites  # indexes still move

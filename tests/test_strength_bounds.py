"""A bound moved across equality where both paths agree there is not a mutant, in C as in
Python: jq-2821 clamps a slice's ends and an index into an int (`d > INT_MAX ? INT_MAX :
(int)d`, `if (didx < INT_MIN) didx = INT_MIN;`), and all six `>` → `>=` survived and were
shown as wrong fixes. The fix comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from tests.strength_sites_support import fix_sites

BEFORE = """static int clamp(double dstart, double dend, double didx, int len) {
  return (int)didx;
}
"""
AFTER = """static int clamp(double dstart, double dend, double didx, int len) {
  int start = dstart > INT_MAX ? INT_MAX : (int)dstart;
  if (dend < 0) dend = start;
  if (didx < INT_MIN) didx = INT_MIN;
  if (didx > len) { didx = len; }
  if (didx > len) didx += len;
  int end = dend > len ? len : (int)dend + 1;
  return start + end + (int)didx;
}
"""
"""jq-2821, cut down. Kept: `dend = start` (another value than the bound), `+=`, and a
conditional whose arm is not the compared value."""


def test_a_clamp_to_its_own_bound_keeps_no_mutant_across_equality(tmp_path: Path) -> None:
    sites = fix_sites(tmp_path, "src/jv_aux.c", (BEFORE, AFTER), "c")
    assert [s for s in sites if "→ `<=" in s or "→ `>=" in s] == [
        "3 `< 0` → `<= 0`",
        "6 `> len` → `>= len`",
        "7 `> len` → `>= len`",
    ]
    go = "package a\n\nfunc f(x, y int) int {\n\tif x > y {\n\t\tx = y\n\t}\n\treturn x\n}\n"
    before = "package a\n\nfunc f(x, y int) int {\n\treturn x\n}\n"
    # No bound moved across equality; only the clamp itself left out.
    assert fix_sites(tmp_path / "go", "a/f.go", (before, go), "go") == ["5 `x = y` removed"]

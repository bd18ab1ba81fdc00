"""No mutant of the tests a fix's pull request wrote inside the source file it changes: Rust's
`#[cfg(test)]` modules and `#[test]` functions (ripgrep-1367's gold patch adds
`regression_1319` to `grep-regex/src/literal.rs`; its assertion left out "survived"). Code only
left out of tests (`#[cfg(not(test))]`) and a feature named like one are the fix's. The fix
comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from tests.strength_sites_support import fix_sites

BUG = """fn cut(n: usize, min: usize) -> bool {
    n < min
}

#[cfg(test)]
mod tests {
    #[test]
    fn small() {
        assert!(super::cut(1, 2));
    }
}
"""
FIX = """fn cut(n: usize, min: usize) -> bool {
    n < min || n == 0
}

#[cfg(not(test))]
fn outside(n: usize) -> bool {
    n > 3
}

#[cfg(feature = "test-util")]
fn helper(n: usize) -> bool {
    n > 4
}

#[cfg(test)]
mod tests {
    #[test]
    fn small() {
        assert!(super::cut(1, 2));
    }

    #[test]
    fn zero() {
        assert!(super::cut(0, 0) && 1 > 0);
    }
}

#[test]
fn top_level() {
    assert!(!super::cut(5, 2) || 2 > 1);
}
"""


def test_a_test_the_fix_wrote_beside_its_code_is_never_mutated(tmp_path: Path) -> None:
    said = fix_sites(tmp_path, "src/lib.rs", (BUG, FIX), "rust")
    lines = {int(str(s).split()[0]) for s in said}
    assert 2 in lines  # the fix's own `|| n == 0`
    assert {7, 12} <= lines  # `#[cfg(not(test))]` and a feature named `test-util`: the fix's
    assert not lines & set(range(15, 31))  # nothing in the test module nor the `#[test]` fn

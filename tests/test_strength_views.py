"""Mutants that cannot change what a fix does, by construction, are not made: a Rust view of
an owned value removed (ripgrep-2295's `self.0.dir.as_path()` → `self.0.dir`, shown as a wrong
fix: auto-deref reaches the same `strip_prefix` on the same path). The fix comes from a small
git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from spice_engine.langs import languages
from spice_engine.langs.capabilities import copying_calls
from tests.strength_sites_support import fix_sites

BEFORE = """fn matched(dir: &Dir, path: &Path) -> PathBuf {
    dir.base.join(path)
}
"""
AFTER = """fn matched(dir: &Dir, path: &Path) -> PathBuf {
    let prefix = match dir.path.as_path().strip_prefix("./") {
        Ok(stripped) => stripped,
        Err(_) => dir.path.as_path(),
    };
    let name = dir.name.as_str().trim();
    dir.base.join(path.strip_prefix(prefix).unwrap_or(path)).join(name.to_lowercase())
}
"""


def test_a_view_of_an_owned_value_is_never_removed(tmp_path: Path) -> None:
    rust = copying_calls(languages()["rust"])
    assert {"clone", "as_path", "as_str", "as_slice"} <= rust
    sites = fix_sites(tmp_path, "src/dir.rs", (BEFORE, AFTER), "rust", rust)
    # No `as_path()` or `as_str()` removed; what else the lines do keeps its mutants.
    assert sites == [
        "6 `dir.name.as_str().trim()` → `dir.name.as_str()`",
        "7 `name.to_lowercase()` → `name`",
    ]
    # Other languages declare none: C++'s `s.c_str()` is another type, Go has no auto-deref.
    assert copying_calls(languages()["go"]) == frozenset()

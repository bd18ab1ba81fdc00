"""Rust's inline `#[cfg(test)]` modules: their hunks go with the test patch, the rest of the same
file with the gold patch, and the two apply one after the other as a harvest's patches must."""

from __future__ import annotations

import subprocess
from pathlib import Path

from spice_engine.pr.diff_split import split_diff
from spice_engine.pr.inline_tests import is_test_hunk

DATA = Path(__file__).parent / "data" / "inline_tests"


def test_a_source_files_test_module_hunks_go_to_the_test_patch(tmp_path: Path) -> None:
    split = split_diff((DATA / "lib_rs.diff").read_text())
    assert [(f.path, f.kind) for f in split.files] == [("lib.rs", "test"), ("lib.rs", "source")]
    assert "fn clamp_caps" in split.test and "fn clamp_caps" not in split.gold
    assert "return hi;" in split.gold and "return hi;" not in split.test
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "lib.rs").write_text((DATA / "lib_rs.base").read_text())
    for patch in (split.test, split.gold):  # the validator's order
        subprocess.run(["git", "apply", "-"], cwd=repo, input=patch, text=True, check=True)
    whole = tmp_path / "whole"
    whole.mkdir()
    (whole / "lib.rs").write_text((DATA / "lib_rs.base").read_text())
    diff = (DATA / "lib_rs.diff").read_text()
    subprocess.run(["git", "apply", "-"], cwd=whole, input=diff, text=True, check=True)
    assert (repo / "lib.rs").read_text() == (whole / "lib.rs").read_text()


def test_a_hunk_is_a_tests_only_when_every_change_is_inside_the_module() -> None:
    added_module = ["+#[cfg(test)]", "+mod tests {", "+    #[test]", "+    fn t() {}", "+}"]
    assert is_test_hunk("impl Foo {", added_module)
    assert is_test_hunk("mod tests {", ["     fn a() {}", "+    fn b() {}"])
    assert is_test_hunk("pub(crate) mod test {", ["-    fn a() {}"])
    leaves = ["+#[cfg(test)]", "+mod tests {", "+}", " ", "+pub fn f() {}"]
    assert not is_test_hunk("", leaves)  # the last change is outside the module again
    assert not is_test_hunk("fn tests_helper() {", ["+    x"])
    assert not is_test_hunk("mod tests {", [" context only"])  # no change: not a test hunk


def test_other_languages_and_whole_files_are_left_as_they_were() -> None:
    diff = (DATA / "lib_rs.diff").read_text().replace("lib.rs", "lib.go")
    assert [f.kind for f in split_diff(diff).files] == ["source"]
    tests_only = diff.replace("lib.go", "tests/it.rs")
    assert [f.kind for f in split_diff(tests_only).files] == ["test"]

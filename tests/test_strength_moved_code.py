"""No mutant of code a fix moves from one hunk of a file to another: go-zero-2116 moves
`MarshalToString` above `Unmarshal` and changes it; fmt-3750 moves
`prefix_append` above the function that now calls it. Only what the fix writes there (`|| data == nil`)
is mutated; a short run of tokens that recurs by chance is still written. The
fix comes from a small git repository, as a PR's."""

from __future__ import annotations

from pathlib import Path

from tests.strength_sites_support import fix_sites

HELPERS = "".join(f"\nfunc helper{i}(n int) int {{\n\treturn n * {i}\n}}\n" for i in range(1, 5))
"""Unchanged functions between the hunks, so git makes two of them."""
BUG = (
    """package jsonx

func Marshal(v interface{}) ([]byte, error) {
\treturn json.Marshal(v)
}

func Unmarshal(data []byte, v interface{}) error {
\treturn json.Unmarshal(data, v)
}
"""
    + HELPERS
    + """
func MarshalToString(v interface{}) (string, error) {
\tdata, err := Marshal(v)
\tif err != nil {
\t\treturn "", formatError(string(data), err)
\t}
\treturn string(data), nil
}
"""
)
FIX = (
    """package jsonx

func Marshal(v interface{}) ([]byte, error) {
\treturn json.Marshal(v)
}

func MarshalToString(v interface{}) (string, error) {
\tdata, err := Marshal(v)
\tif err != nil || data == nil {
\t\treturn "", err
\t}
\treturn string(data), nil
}

func Unmarshal(data []byte, v interface{}) error {
\tif len(data) == 0 {
\t\treturn nil
\t}
\treturn json.Unmarshal(data, v)
}
"""
    + HELPERS
)


def test_code_moved_between_hunks_is_not_mutated(tmp_path: Path) -> None:
    said = fix_sites(tmp_path, "jsonx/json.go", (BUG, FIX), "go")
    # MarshalToString's moved body: only its new `|| data == nil` (line 9)
    assert {str(s).split(" ", 1)[1] for s in said if str(s).startswith("9 ")} == {
        "`|| data == nil` → `&& data == nil`",
        "`== nil` → `!= nil`",
    }, said
    assert any(str(s).startswith("16 ") for s in said), said  # the new `len(data) == 0`

"""Gold/test split: SWE-bench's published split, byte-exact round trips, handmade edge cases."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spice_engine.errors import InputError
from spice_engine.pr.diff_split import SplitRules, classify, split_diff

DATA = Path(__file__).parent / "data"


def test_reproduces_swebench_split_on_every_dev_instance(
    swebench_instances: list[dict[str, Any]],
) -> None:
    with_tests = [r for r in swebench_instances if r.get("test_patch")]
    assert len(with_tests) == 419
    mismatches = []
    for row in with_tests:
        joined = row["patch"] + row["test_patch"]
        split = split_diff(joined)
        if (split.gold, split.test) != (row["patch"], row["test_patch"]):
            mismatches.append(row["instance_id"])
        assert split.join() == joined
    assert mismatches == []


def test_gold_only_instances_are_all_source(swebench_instances: list[dict[str, Any]]) -> None:
    for row in swebench_instances:
        if row.get("patch") and not row.get("test_patch"):
            split = split_diff(row["patch"])
            assert split.join() == row["patch"]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/_pytest/fixtures.py", "source"),
        ("src/_pytest/pytester.py", "source"),
        ("testing/test_mark.py", "test"),
        ("tests/regrtest_data/foo.py", "test"),
        ("sympy/core/tests/test_basic.py", "test"),
        ("lib/matplotlib/tests/baseline_images/x.png", "test"),
        ("pkg/server/handler_test.go", "test"),
        ("pkg/server/testdata/input.json", "test"),
        ("web/src/__tests__/App.tsx", "test"),
        ("web/src/App.test.ts", "test"),
        ("web/src/App.spec.jsx", "test"),
        ("spec/models/user_spec.rb", "test"),
        ("app/models/user.rb", "source"),
        ("conftest.py", "test"),
        ("ui/fixtures/page.html", "test"),
        ("docs/contest.rst", "source"),
        ("django/db/models/query.py", "source"),
        ("src/attest.py", "source"),
    ],
)
def test_classify(path: str, kind: str) -> None:
    assert classify(path) == kind


def test_override_globs_win() -> None:
    rules = SplitRules(source_globs=["sympy/testing/*"], test_globs=["benchmarks/**", "*.golden"])
    assert classify("sympy/testing/pytest.py", rules) == "source"
    assert classify("benchmarks/x/run.py", rules) == "test"
    assert classify("out/expected.golden", rules) == "test"
    assert classify("sympy/testing/pytest.py") == "test"


@pytest.mark.parametrize("name", ["pr_handmade.diff", "pr_handmade_binary.diff"])
def test_handmade_git_diffs_round_trip(name: str) -> None:
    text = (DATA / name).read_text()
    split = split_diff(text)
    assert split.join() == text
    by_path = {f.path: f for f in split.files}
    assert by_path["new_name.py"].source_path == "old_name.py"
    assert "rename from old_name.py" in by_path["new_name.py"].text
    assert by_path["gone.py"].removed
    assert by_path["img.bin"].binary and by_path["img.bin"].kind == "source"
    assert by_path["tests/data.bin"].binary and by_path["tests/data.bin"].kind == "test"
    assert "new mode 100755" in by_path["run.sh"].text
    assert by_path["keep.py"].text.endswith("\\ No newline at end of file\n")
    assert split.test.count("diff --git") == 2
    assert split.gold.count("diff --git") == 5


def test_plain_diff_with_dashes_inside_a_hunk() -> None:
    # A removed line "-- x" reads as "--- x": only the hunk counts tell it is not a header.
    text = (
        "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- x\n+++ y\n-z\n"
        "--- a/tests/t.sql\n+++ b/tests/t.sql\n@@ -1 +1 @@\n-a\n+b\n"
    )
    split = split_diff(text)
    assert [f.path for f in split.files] == ["q.sql", "tests/t.sql"]
    assert split.join() == text
    assert split.gold.endswith("-z\n")


def test_preamble_is_kept_with_the_gold_patch() -> None:
    text = "From abc\nSubject: fix\n\n" + (DATA / "pr_handmade.diff").read_text()
    split = split_diff(text)
    assert split.preamble.startswith("From abc")
    assert split.join() == text


@pytest.mark.parametrize(
    "text",
    ["", "just some prose\n", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n"],
)
def test_malformed_diff_is_a_clear_input_error(text: str) -> None:
    with pytest.raises(InputError, match="malformed diff"):
        split_diff(text)


_TRICKY = st.sampled_from(
    ["-- x", "++ y", "--- a/evil.py", "+++ b/evil.py", "diff --git a/q b/q", "@@ -1 +1 @@", "", "x"]
)


@settings(max_examples=60, deadline=None)
@given(
    files=st.lists(
        st.tuples(
            st.sampled_from(["src/a.py", "tests/test_a.py", "lib/b.go", "pkg/b_test.go"]),
            st.lists(_TRICKY, min_size=1, max_size=8),
            st.lists(_TRICKY, min_size=1, max_size=8),
        ),
        min_size=1,
        max_size=4,
        unique_by=lambda f: f[0],
    )
)
def test_round_trip_with_header_like_lines_inside_hunks(
    files: list[tuple[str, list[str], list[str]]],
) -> None:
    text = ""
    for path, old, new in files:
        if old == new:
            new = [*new, "changed"]
        text += "".join(
            difflib.unified_diff(
                [f"{line}\n" for line in old],
                [f"{line}\n" for line in new],
                f"a/{path}",
                f"b/{path}",
                lineterm="\n",
            )
        )
    split = split_diff(text)
    assert split.join() == text
    assert [f.path for f in split.files] == [p for p, _, _ in files]
    assert all(f.kind == classify(f.path) for f in split.files)

"""What PR evidence reports of handmade patches: the tests' stats, the difficulty prior, the
summary, and the pipeline's record as a comment shows it."""

from __future__ import annotations

import json

import pytest

from app.github.comment_render import evidence_lines
from spice_engine.pr_evidence import evidence_summary, pipeline_evidence, pr_evidence
from tests.pr_evidence_support import TEST_OLD, WIDGETS_OLD, diff


def test_stats_count_added_modified_and_parametrised_cases() -> None:
    old = """\
import pytest


@pytest.mark.parametrize("value, expected", [
    (1, 2),
])
def test_double(value, expected):
    assert value * 2 == expected


def test_other():
    assert True
"""
    new = old.replace("    (1, 2),\n", "    (1, 2),\n    (2, 4),\n    (3, 6),\n").replace(
        "    assert True\n", "    assert 1\n\n\ndef test_new():\n    assert 2\n"
    )
    ev = pr_evidence("", diff("tests/test_x.py", old, new), "")
    stats = ev.test_stats
    assert (stats.tests_added, stats.tests_modified, stats.parametrized_cases) == (1, 1, 2)


@pytest.mark.parametrize(
    ("changed", "expected"),
    [(1, 0), (10, 1), (40, 2), (400, 3)],
)
def test_difficulty_prior_grows_with_patch_size(changed: int, expected: int) -> None:
    old = "".join(f"v{i} = {i}\n" for i in range(changed))
    new = "".join(f"v{i} = {i + 1}\n" for i in range(changed))
    prior = pr_evidence(diff("pkg/values.py", old, new), "", "").difficulty_prior
    assert prior.features["changed_lines"] == 2 * changed
    assert prior.score == expected


def test_summary_is_compact_and_names_the_evidence() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD + "\n\ndef frobnicate(widget):\n    return widget\n",
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD + "\n\ndef test_frob():\n    assert frobnicate(1) == 1\n",
    )
    text = evidence_summary(pr_evidence(gold, tests, "scale widgets"))
    assert text.startswith("! uses_new_api:")
    assert "frobnicate" in text and "tests/test_widgets.py:11" in text
    assert "difficulty prior:" in text and "1 added, 0 modified" in text
    assert len(text.splitlines()) <= 8


def test_pipeline_evidence_record_reads_well_in_a_comment() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD + "\n\ndef frobnicate(widget):\n    return widget\n",
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD + "\n\ndef test_frob():\n    assert frobnicate(1) == 1\n",
    )
    record, text = pipeline_evidence(gold, tests, "scale widgets")
    assert text == evidence_summary(pr_evidence(gold, tests, "scale widgets"))
    assert record["tests_flag"] is True
    flags = record["test_flags"]
    assert isinstance(flags, dict) and flags["uses_new_api"].endswith("[tests/test_widgets.py:11]")
    assert str(record["difficulty_prior"]).startswith("0 (<15 min) from 4 changed lines")
    json.dumps(record)  # a result field must serialise
    lines = evidence_lines(record, ())
    # The renderer escapes markdown; the sentence and its location survive.
    assert any("introduced by the fix" in line and "test\\_widgets.py:11" in line for line in lines)


def test_pipeline_evidence_turns_an_unreadable_diff_into_a_note() -> None:
    broken = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n-x = 1\n+x = 2\n"
    record, text = pipeline_evidence(broken, "", "x")
    assert text == "" and "cannot read diff" in str(record["pr_evidence_error"])

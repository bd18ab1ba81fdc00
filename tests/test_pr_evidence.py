"""PR evidence on handmade patches: each flag, the parser's fallbacks, stats and the prior."""

from __future__ import annotations

import difflib
import json
import textwrap

import pytest

from app.github.comment_render import evidence_lines
from spice_engine.pr_evidence import PrEvidence, evidence_summary, pipeline_evidence, pr_evidence
from spice_engine.pr_evidence.flags import COUNTING_FLAGS
from spice_engine.pr_evidence.introduced import introduced, message_pieces
from spice_engine.pr_evidence.patch_parse import parse_hunk, parse_patch
from spice_engine.pr_evidence.test_usage import MessageMatcher

WIDGETS_OLD = '''\
"""Widgets."""


class Widget:
    def __init__(self, count):
        self.count = count

    def size(self):
        return self.count * 2


def load(path):
    with open(path) as handle:
        return handle.read()
'''


def diff(path: str, old: str, new: str) -> str:
    """A git-style unified diff of one file (old "" means a new file)."""
    old_lines = textwrap.dedent(old).splitlines(keepends=True)
    new_lines = textwrap.dedent(new).splitlines(keepends=True)
    body = difflib.unified_diff(
        old_lines, new_lines, "/dev/null" if not old else f"a/{path}", f"b/{path}", n=3
    )
    return f"diff --git a/{path} b/{path}\n" + "".join(body)


def flag_names(ev: PrEvidence) -> set[str]:
    return {flag.name for flag in ev.flags}


def the_flag(ev: PrEvidence, name: str):  # type: ignore[no-untyped-def]
    matches = [flag for flag in ev.flags if flag.name == name]
    assert matches, f"{name} did not fire; fired: {sorted(flag_names(ev))}"
    return matches[0]


TEST_OLD = """\
import pytest

from pkg.widgets import Widget, load


def test_size():
    assert Widget(2).size() == 4
"""


def test_new_message_asserted_by_tests_and_absent_from_issue() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD.replace(
            "        self.count = count\n",
            "        if count < 0:\n"
            '            raise ValueError(f"widget count must be positive, got {count}")\n'
            "        self.count = count\n",
        ),
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD
        + """

def test_negative():
    with pytest.raises(ValueError, match="count must be positive"):
        Widget(-1)
""",
    )
    ev = pr_evidence(gold, tests, "Widget(-1) gives a negative size instead of an error.")
    flag = the_flag(ev, "asserts_new_message")
    assert flag.counts_for_tests and ev.tests_flag
    item = flag.evidence[0]
    assert item.name == "count must be positive"
    assert item.file == "tests/test_widgets.py" and item.line == 11
    assert "pkg/widgets.py:7" in item.detail and "does not contain" in item.detail
    # The same patch, with an issue that quotes the message, is a different, non-counting flag.
    quoted = pr_evidence(gold, tests, 'It should say "widget count must be positive".')
    assert "asserts_new_message" not in flag_names(quoted)
    assert not the_flag(quoted, "asserts_message_from_issue").counts_for_tests


def test_exact_error_text_checked_through_a_variable() -> None:
    gold = diff(
        "pkg/widgets.py", WIDGETS_OLD, WIDGETS_OLD.replace("count * 2", "abs(self.count) * 2")
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD
        + """

class WidgetTests(TestCase):
    def test_bad(self):
        msg = "Widgets cannot be built from strings."
        with self.assertRaisesMessage(TypeError, msg):
            Widget("x").size()
""",
    )
    ev = pr_evidence(gold, tests, "size() of a negative widget is negative")
    item = the_flag(ev, "asserts_exact_error_text").evidence[0]
    assert item.name == "Widgets cannot be built from strings."
    assert item.line == 12
    assert ev.tests_flag
    # A message the issue states is fair to check.
    fair = pr_evidence(gold, tests, "Raise 'Widgets cannot be built from strings.' please")
    assert "asserts_exact_error_text" not in flag_names(fair)


def test_new_function_used_by_tests_and_not_in_issue() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD + "\n\ndef frobnicate(widget, factor=3):\n    return widget.size() * factor\n",
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD + "\n\ndef test_frob():\n    assert frobnicate(Widget(1)) == 6\n",
    )
    ev = pr_evidence(gold, tests, "Widgets need a way to scale their size.")
    item = the_flag(ev, "uses_new_api").evidence[0]
    assert item.name == "frobnicate"
    assert "`frobnicate` (def) is introduced by the fix" in item.detail
    assert "absent from the issue" in item.detail
    # Naming the function in the issue makes it a fair, non-counting use.
    asked = pr_evidence(gold, tests, "Please add frobnicate() to scale widgets.")
    assert not the_flag(asked, "uses_new_api_named_in_issue").counts_for_tests
    assert not asked.tests_flag


def test_new_keyword_parameter_pins_the_signature_even_if_the_issue_names_it() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD.replace("def load(path):\n", "def load(path, strict=False):\n    del strict\n"),
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD + "\n\ndef test_load(tmp_path):\n    assert load(tmp_path / 'x', strict=True)\n",
    )
    unnamed = pr_evidence(gold, tests, "load() accepts broken files silently")
    item = the_flag(unnamed, "uses_new_api").evidence[0]
    assert item.name == "strict" and "strict=True" in item.detail
    named = pr_evidence(gold, tests, "load() needs a strict mode")
    flag = the_flag(named, "uses_new_parameter_named_in_issue")
    assert flag.counts_for_tests and flag.evidence[0].name == "strict"


def test_attribute_string_value_and_warning_flags() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD.replace(
            "        self.count = count\n",
            "        self.count = count\n"
            "        self.doubled_ = count * 2\n"
            '        self.mode = "lenient_parse" if count else "plain"\n',
        ),
    )
    tests = diff(
        "tests/test_widgets.py",
        TEST_OLD,
        TEST_OLD
        + """

def test_attrs():
    widget = Widget(2)
    assert widget.doubled_ == 4
    assert widget.mode == "lenient_parse"
    with pytest.warns(UserWarning):
        Widget(0)
""",
    )
    ev = pr_evidence(gold, tests, "Widget should remember its doubled size.")
    assert the_flag(ev, "uses_new_attribute").evidence[0].name == "doubled_"
    assert the_flag(ev, "uses_new_string_value").evidence[0].name == "lenient_parse"
    warn = the_flag(ev, "expects_unasked_warning")
    assert warn.evidence[0].line == 14 and warn.counts_for_tests
    assert not the_flag(ev, "uses_new_attribute").counts_for_tests
    mentioned = pr_evidence(gold, tests, "Widget(0) should warn.")
    assert "expects_unasked_warning" not in flag_names(mentioned)


def test_tests_outside_the_patched_files() -> None:
    gold = diff("pkg/widgets.py", WIDGETS_OLD, WIDGETS_OLD.replace("* 2", "* 3"))
    tests = diff("tests/test_gadgets.py", "", "def test_gadget():\n    assert True\n")
    ev = pr_evidence(gold, tests, "sizes are off")
    item = the_flag(ev, "tests_outside_patch").evidence[0]
    assert item.file == "tests/test_gadgets.py"
    same_module = diff("tests/test_widgets.py", "", "def test_w():\n    assert True\n")
    assert "tests_outside_patch" not in flag_names(pr_evidence(gold, same_module, "x"))


def test_no_flags_and_every_flag_has_evidence() -> None:
    gold = diff("pkg/widgets.py", WIDGETS_OLD, WIDGETS_OLD.replace("* 2", "* 3"))
    tests = diff("tests/test_widgets.py", TEST_OLD, TEST_OLD.replace("== 4", "== 6"))
    ev = pr_evidence(gold, tests, "Widget(2).size() should be 6")
    assert ev.flags == [] and not ev.tests_flag
    assert "no test-adequacy flag fired" in evidence_summary(ev)
    assert ev.test_stats.tests_modified == 1 and ev.test_stats.tests_added == 0


def test_counting_flags_are_named_flags() -> None:
    assert {
        "asserts_new_message",
        "asserts_exact_error_text",
        "uses_new_api",
        "uses_new_parameter_named_in_issue",
        "expects_unasked_warning",
    } == COUNTING_FLAGS


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


def test_introduced_excludes_names_that_existed_before() -> None:
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD.replace("return self.count * 2", "return self.count * 2 + self.size_bonus()")
        + "\n\ndef size_bonus():\n    return 0\n",
    )
    names = {n.name: n.kind for n in introduced(parse_patch(gold)).names}
    assert names == {"size_bonus": "def"}


def test_message_pieces_split_placeholders_and_drop_glue() -> None:
    assert message_pieces("n_quantiles (%s) is greater than %d samples") == [") is greater than"]
    assert message_pieces(", app_names=") == []
    assert message_pieces("rename {k!r} to {v!r} does not create an index") == [
        "does not create an index"
    ]


def test_hunks_cut_inside_blocks_parse_with_ast() -> None:
    gold = diff(
        "pkg/deep.py",
        "def f(x):\n    if x:\n        for i in x:\n            a = 1\n            b = 2\n"
        "            c = 3\n            d = 4\n    else:\n        y = 0\n    return x\n",
        "def f(x):\n    if x:\n        for i in x:\n            a = 1\n            b = 2\n"
        "            c = 3\n            d = 4\n    else:\n        y = new_helper(x)\n    return x\n",
    )
    hunk = parse_patch(gold)[0].post_hunks[0]
    fragments = parse_hunk(hunk[3:])  # starts deep in the for body, crosses `else:`
    assert fragments and all(fragment.tree is not None for fragment in fragments)


def test_unparseable_lines_fall_back_to_tokens() -> None:
    gold = diff(
        "pkg/a.py", "x = 1\n", 'x = 1\ncall(first,\n    "an unterminated message text here"\n'
    )
    fragments = parse_hunk(parse_patch(gold)[0].post_hunks[0])
    assert any(fragment.tree is None and fragment.tokens for fragment in fragments)
    messages = introduced(parse_patch(gold)).messages
    assert [m.value for m in messages] == ["an unterminated message text here"]


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


def test_expected_output_files_count_as_checked_text() -> None:
    gold = diff(
        "pkg/lint.py",
        "def check(line):\n    return []\n",
        'def check(line):\n    return ["Bad option value for disable: unknown-thing"]\n',
    )
    tests = diff(
        "tests/functional/bad_option.txt",
        "",
        "bad-option-value:10:0::Bad option value for disable: unknown-thing\n",
    )
    item = the_flag(
        pr_evidence(gold, tests, "pylint crashes on an unknown option"), "asserts_new_message"
    )
    assert item.evidence[0].file == "tests/functional/bad_option.txt"
    assert item.evidence[0].line == 1


def test_message_matcher_keeps_containment_when_its_budget_is_spent() -> None:
    new = introduced(
        parse_patch(
            diff("pkg/m.py", "x = 1\n", 'x = 1\nMSG = "the value {v} must not be negative here"\n')
        )
    )
    matcher = MessageMatcher(new.messages, max_long_matches=0)
    contained = [("must not be negative", frozenset({"must not"}))]
    assert matcher.overlaps(contained, 0) == ["must not be negative"]
    formatted = "value 3 must not be negative, ever"
    shifted = [(formatted, frozenset(formatted[i : i + 8] for i in range(len(formatted) - 7)))]
    assert matcher.overlaps(shifted, 0) == [] and matcher.exhausted
    assert MessageMatcher(new.messages).overlaps(shifted, 0) == ["must not be negative"]


def test_checkout_hides_names_that_already_exist(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gold = diff(
        "pkg/widgets.py",
        WIDGETS_OLD,
        WIDGETS_OLD + "\n\ndef frobnicate(widget):\n    return widget\n",
    )
    assert [n.name for n in introduced(parse_patch(gold)).names] == ["frobnicate", "widget"]
    (tmp_path / "pkg").mkdir()
    # The base file already defines it further down, outside the hunk's context.
    (tmp_path / "pkg" / "widgets.py").write_text(WIDGETS_OLD + "\nfrobnicate = None\n")
    assert [n.name for n in introduced(parse_patch(gold), tmp_path).names] == ["widget"]
    tests = diff(
        "tests/test_widgets.py", TEST_OLD, TEST_OLD + "\n\ndef test_f():\n    frobnicate(1)\n"
    )
    assert not pr_evidence(gold, tests, "x", repo_path=tmp_path).tests_flag


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

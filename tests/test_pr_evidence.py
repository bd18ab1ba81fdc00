"""PR evidence's test-adequacy flags on handmade patches: each flag, its evidence, what keeps
it from firing, and which flags count."""

from __future__ import annotations

from spice_engine.pr_evidence import evidence_summary, pr_evidence
from spice_engine.pr_evidence.flags import COUNTING_FLAGS
from tests.pr_evidence_support import TEST_OLD, WIDGETS_OLD, diff, flag_names, the_flag


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

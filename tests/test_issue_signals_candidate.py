"""Candidate-solution signal: what counts as the reporter proposing a fix."""

from __future__ import annotations

from spice_engine.issue_signals import extract_signals


def test_a_question_asking_for_a_workaround_is_not_a_candidate_solution() -> None:
    body = (
        "The generated code returns an integer instead of a tuple.\n\n"
        "Could you suggest a workaround from the code generation side?"
    )
    assert extract_signals("Tuple", body).candidate_solution == "none"


def test_a_change_the_reporter_tried_is_a_candidate_solution() -> None:
    body = (
        "At query.py line 745 there is `opts = cur_model._meta`.\n\n"
        "If I replace it by\n\n    opts = cur_model._meta.concrete_model._meta\n\n"
        "all works as expected."
    )
    assert extract_signals("Proxy crash", body).candidate_solution == "complete"


def test_an_expected_result_introducing_code_is_not_fix_code() -> None:
    body = "The expected result of `vel(A)` should be:\n\n    A.x + A.y\n\nIt raises instead."
    assert extract_signals("Velocity", body).candidate_solution != "complete"


def test_a_line_number_alone_is_not_a_fix() -> None:
    body = "Error at LINE 1: relation does not exist.\n\nIt happens at line 84 of utils.py."
    assert extract_signals("Crash", body).candidate_solution == "none"


def test_a_modal_wish_alone_is_expected_behaviour_not_a_fix() -> None:
    # "should ... use" is how expected behaviour is written; it used to count as half a cue.
    body = (
        "Calling `fit` twice raises a ValueError.\n\n"
        "The estimator should reuse the fitted vocabulary instead.\n\n"
        "It should also check the input shape."
    )
    assert extract_signals("Refit crash", body).candidate_solution == "none"


def test_one_cue_is_a_partial_fix_two_are_complete() -> None:
    one = "Sorting crashes on None keys.\n\nThe fix is to skip None keys before sorting."
    two = one + "\n\nThe root cause is that `key()` returns None for empty rows."
    assert extract_signals("Sort", one).candidate_solution == "partial"
    assert extract_signals("Sort", two).candidate_solution == "complete"


def test_what_stands_under_a_proposed_solution_section_proposes_a_fix() -> None:
    body = (
        "### Problem\n\nOnly `__version__` is exposed; comparing strings is fragile.\n\n"
        "### Proposed solution\n\nExpose a `version_info` tuple next to it.\n"
    )
    assert extract_signals("Version info", body).candidate_solution == "partial"
    skipped = body.replace("Expose a `version_info` tuple next to it.", "_No response_")
    assert extract_signals("Version info", skipped).candidate_solution == "none"
    # GitHub's feature template asks for the behaviour wanted, not for a change to the code.
    wished = body.replace("### Proposed solution", "### Describe the solution you'd like")
    assert extract_signals("Version info", wished).candidate_solution == "none"


def test_an_expected_result_naming_dotted_code_is_not_fix_code() -> None:
    # The period of `Q.vel` used to end the sentence before "expected" could be read.
    body = "The expected result of the `Q.vel(A)` should be:\n\n    A.x + A.y\n\nIt raises."
    assert extract_signals("Velocity", body).candidate_solution != "complete"


def test_not_knowing_where_the_problem_is_names_no_cause() -> None:
    unsure = "Simplify raises PolynomialError.\n\nI am not sure where the bug is, sorry."
    assert extract_signals("Crash", unsure).candidate_solution == "none"
    named = "Simplify raises PolynomialError.\n\nThe bug is that `gcd` drops the domain."
    assert extract_signals("Crash", named).candidate_solution == "partial"


def test_a_traceback_quoting_code_the_fix_only_moves_proposes_nothing() -> None:
    patch = (
        "--- a/point.py\n+++ b/point.py\n@@ -1,4 +1,5 @@\n def vel(self, frame):\n"
        "     if frame not in self._vel_dict:\n"
        "-        raise ValueError('Velocity of point not defined')\n"
        "-    return self._vel_dict[frame]\n"
        "+        if not self.calculate(frame):\n"
        "+            raise ValueError('Velocity of point not defined')\n"
        "+        return self._vel_dict[frame]\n"
    )
    body = (
        '```\n  File "point.py", line 3, in vel\n'
        "    raise ValueError('Velocity of point not defined')\n"
        "    return self._vel_dict[frame]\nValueError: Velocity of point not defined\n```"
    )
    assert extract_signals("Velocity", body, fix_patch=patch).candidate_solution == "none"
    # The same lines written afresh by the fix: the issue quotes new code.
    written = (
        "--- a/point.py\n+++ b/point.py\n@@ -1,1 +1,3 @@\n def vel(self, frame):\n"
        "+        raise ValueError('Velocity of point not defined')\n"
        "+    return self._vel_dict[frame]\n"
    )
    assert extract_signals("Velocity", body, fix_patch=written).candidate_solution == "complete"


def test_describing_the_problem_or_a_users_workaround_proposes_no_fix() -> None:
    for sentence in (
        "The problem is that the legend disappears.",
        "The workaround is to pass `keep_attrs=False`.",
        "Optimistically marking this as easy to fix (I could be wrong).",
        "The long form using Coalesce works.",
    ):
        body = f"Plotting twice raises a KeyError.\n\n{sentence}"
        assert extract_signals("Crash", body).candidate_solution == "none", sentence


def test_a_fix_said_in_the_active_voice_is_a_candidate_solution() -> None:
    for sentence in (
        "We can correct this by ensuring that the subparser action copies the arguments.",
        "This should be straightforward to add by adding a `__reversed__()` method.",
        "The fix in #7571 does a set instead of setdefault on `_initial_handler_level`.",
    ):
        body = f"Calling it twice loses the level.\n\n{sentence}"
        assert extract_signals("Levels", body).candidate_solution != "none", sentence
    # The same words about what a user ran are not a change to the code.
    tried = "Calling it twice loses the level.\n\nIt was resolved by reinstalling numpy."
    assert extract_signals("Levels", tried).candidate_solution == "none"


def test_code_named_as_absent_is_a_candidate_solution() -> None:
    for sentence in (
        "`Quaternion` class has no overridden `evalf` method.",
        "The value is converted into a date without guarding against an OverflowError.",
        "In such case, this make_hashable call is missing in ManyToManyRel.",
    ):
        body = f"It crashes on large input.\n\n{sentence}"
        assert extract_signals("Crash", body).candidate_solution != "none", sentence
    # A TypeError's missing argument is the symptom, not the fix.
    symptom = "It crashes on large input.\n\nThe call fails because the value argument is missing."
    assert extract_signals("Crash", symptom).candidate_solution == "none"

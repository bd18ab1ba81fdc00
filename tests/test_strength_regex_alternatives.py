r"""A pattern's alternative left out (spice_engine.strength.regex_alternatives): a raw string's or
a raw f-string's group with alternatives loses its last one (pylint-5859's `(?=(:|\s|\Z))`);
escapes, character classes and prose are not read as groups."""

from __future__ import annotations

from spice_engine.strength.mutants import REGEX, run_mutator
from spice_engine.strength.regex_alternatives import dropped_alternatives

NOTES = r"""import re


def compile_notes(notes, rgx):
    regex_string = rf"#\s*({notes})(?=(:|\s|\Z))"
    plain = "a|b (or c|d)"
    word = re.compile(r"^(foo|bar)$")
    return re.compile(regex_string, re.I), word, plain
"""


def test_the_last_alternative_of_a_group_is_left_out() -> None:
    (got,) = dropped_alternatives(r"#\s*(?=(:|\s|\Z))")
    assert (got.text, got.was, got.now) == (r"#\s*(?=(:|\s))", r"(:|\s|\Z)", r"(:|\s)")
    first, second = dropped_alternatives(r"(a|b)x(c|(d|e))")
    assert first.now == "(a)" and second.now == "(c)"  # groups in the order they open


def test_escapes_classes_empty_alternatives_and_unbalanced_text_are_no_groups() -> None:
    assert dropped_alternatives(r"\(a|b\)") == []
    assert dropped_alternatives(r"[(|)]x") == []
    assert dropped_alternatives(r"(a|)") == []  # the empty alternative is the point
    assert dropped_alternatives(r"(foo|bar") == []


def test_raw_strings_and_raw_f_strings_get_the_mutant_prose_does_not() -> None:
    _, sites = run_mutator(NOTES, {5, 6, 7}, None, False)
    regex = [(s.line, s.change) for s in sites if s.operator == REGEX]
    assert regex == [(5, r"`(:|\s|\Z)` → `(:|\s)`"), (7, "`(foo|bar)` → `(foo)`")]
    for line, written in ((5, r'rf"#\s*({notes})(?=(:|\s))"'), (7, r're.compile(r"^(foo)$")')):
        chosen = {s.id for s in sites if s.operator == REGEX and s.line == line}
        plain, _ = run_mutator(NOTES, {5, 6, 7}, chosen, False)
        assert written in plain

"""PR evidence reading handmade patches: the names and messages a fix introduces, the
parser's fallbacks on cut or broken hunks, and the message matcher."""

from __future__ import annotations

from spice_engine.pr_evidence import pr_evidence
from spice_engine.pr_evidence.introduced import introduced, message_pieces
from spice_engine.pr_evidence.patch_parse import parse_hunk, parse_patch
from spice_engine.pr_evidence.test_usage import MessageMatcher
from tests.pr_evidence_support import TEST_OLD, WIDGETS_OLD, diff


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

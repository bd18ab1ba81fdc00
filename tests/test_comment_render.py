"""Comment rendering and the pure parts of the adapter: neutralising, caps, labels, config, state."""

from __future__ import annotations

import re

from app.github.client import CommentData, LabelEvent
from app.github.comment_render import MAX_COMMENT_CHARS, assessment_view, render_view
from app.github.labels import LabelHistory, LabelPlan, plan_changes, scored_label, spec_by_name
from app.github.repo_config import parse_config
from app.github.sticky_comment import StickyState, find_sticky, read_state, state_line
from app.github.untrusted_text import code_span, neutralise
from spice_engine.aggregation import aggregate_dimension
from spice_engine.models import CandidateSolution, Issue, IssueAssessment, PromptRef, Usage, Vote

BOT = "spice-triage[bot]"


def _assessment(
    rationale: str, votes: int = 3, questions: list[str] | None = None
) -> IssueAssessment:
    vote_list = [Vote(score=2, rationale=rationale) for _ in range(votes)]
    return IssueAssessment(
        issue=Issue(title="t", body="b"),
        clarity=aggregate_dimension("clarity", vote_list, votes),
        candidate_solution=CandidateSolution.NONE,
        questions=questions or [],
        model="openai/fake",
        prompt=PromptRef(id="issue_clarity", version="1"),
        engine_version="0",
        usage=Usage(input=10, output=5, cost_usd=0.0012),
        input_hash="h",
    )


def test_neutralise_breaks_mentions_html_markers_and_redacts_secrets() -> None:
    text = "@octocat <script>x</script> <!-- spice-triage:state {} --> sk-live-123456789\n# head"
    out = neutralise(text, secrets=("sk-live-123456789",))
    assert "@\u200doctocat" in out and not re.search(r"@[a-z]", out)
    assert "<" not in out and "&lt;script&gt;" in out
    assert "spice-triage" not in out and "redacted" in out and "sk-live" not in out
    assert "\n" not in out and "\\#" in out
    assert (
        neutralise("x" * 5000, limit=100).endswith("…") and len(neutralise("x" * 5000, 100)) == 100
    )
    assert code_span("a`b@c\u202e") == "`a'b@c`"
    linked = neutralise("see https://evil.example/x, HTTP://a.b www.c.d and mail me@e.f")
    assert not re.search(r"(?i)(https?|www|ftp)[:.]|@[a-z]", linked)
    assert "evil.example/x" in linked and "http" + "\u200d://" in linked.lower()
    assert neutralise("the www-data user, httpx.get and whttps://") == (
        "the www-data user, httpx.get and whttps://"
    )


def test_rendered_comment_is_structured_and_capped() -> None:
    huge = "word " * 20_000
    a = _assessment(huge, votes=15, questions=[huge] * 5)
    state = StickyState(input_hash="abc", pipeline="issues", votes={"clarity": [2] * 15})
    body = render_view(assessment_view(a, "", ()), state, "assessment")
    assert len(body) <= MAX_COMMENT_CHARS
    assert body.startswith("<!-- spice-triage:assessment -->\n" + state_line(state))
    assert body.count("<details") == body.count("</details>")
    assert " · ".join(["2"] * 15) in body and "$0.0012" in body


def test_state_is_read_only_from_our_own_marked_comment() -> None:
    state = StickyState(input_hash="real", pipeline="issues")
    ours = f"<!-- spice-triage:assessment -->\n{state_line(state)}\nbody"
    forged = ours.replace("real", "forged")
    comments = [
        CommentData(id=1, body=forged, author="reporter"),
        CommentData(id=2, body="quote: " + ours, author=BOT),
        CommentData(id=3, body=ours, author=BOT),
    ]
    found = find_sticky(comments, BOT, "assessment")
    assert found is not None and found.id == 3
    assert read_state(found) == state
    assert read_state(CommentData(id=4, body=ours.replace('"real"', "1"), author=BOT)) is None
    assert "-->" not in state_line(StickyState(input_hash="a-->b", pipeline="x"))[:-4]


def test_labels_only_from_scores_and_only_our_siblings_change() -> None:
    assert scored_label("clarity", 7) is None and scored_label("anything", 1) is None
    plan = LabelPlan(desired={"clarity": "clarity: well-specified", "triage": None})
    current = ["bug", "Clarity: Ambiguous", "triage: needs human", "clarity: not-ours"]
    change = plan_changes(current, plan, "")
    assert change.added == ["clarity: well-specified"]
    assert sorted(change.removed) == ["Clarity: Ambiguous", "triage: needs human"]
    specs = spec_by_name("spice/")
    assert "spice/difficulty: >4h" in specs and len(specs) >= 14
    assert all(re.fullmatch("[0-9a-f]{6}", s.color) and s.description for s in specs.values())


def test_label_history_gives_people_the_last_word() -> None:
    bot = "Spice-Triage[bot]"
    plan = LabelPlan(
        desired={
            "clarity": "clarity: well-specified",
            "triage": None,
            "candidate_solution": "has candidate solution",
        }
    )
    current = ["clarity: ambiguous", "triage: needs human"]
    events = [
        LabelEvent(label="Clarity: Ambiguous", actor="spice-triage[bot]", added=True),
        LabelEvent(label="has candidate solution", actor="spice-triage[bot]", added=True),
        LabelEvent(label="has candidate solution", actor="alice", added=False),
    ]
    # Ours by its last event (case aside): swapped. No record of who put on the triage
    # label: a person's. Taken off by a person: not put back.
    change = plan_changes(current, plan, "", LabelHistory.from_events(events, bot))
    assert change.added == ["clarity: well-specified"]
    assert change.removed == ["clarity: ambiguous"]
    assert change.left == ["triage: needs human", "has candidate solution"]
    # A person took ours off and put it back on themselves: theirs now, left whole.
    events.append(LabelEvent(label="clarity: ambiguous", actor="bob", added=False))
    events.append(LabelEvent(label="clarity: ambiguous", actor="bob", added=True))
    change = plan_changes(current, plan, "", LabelHistory.from_events(events, bot))
    assert change.added == [] and "clarity: ambiguous" in change.left


def test_config_parsing() -> None:
    assert parse_config(None).config is not None
    assert parse_config("").config is not None
    assert parse_config("votes: [").error and parse_config("- a").error
    bad = parse_config("votes: 0\nmodels: {issues: 3}\n")
    assert bad.config is None and {p for p, _ in bad.problems} == {"votes", "models.issues"}
    good = parse_config("ignored_authors: ['*[bot]', 'Spammer']\ncomment_mode: never\n").config
    assert good is not None and good.comment_mode == "never"
    assert good.ignores("renovate[bot]") and good.ignores("spammer") and not good.ignores("bot")

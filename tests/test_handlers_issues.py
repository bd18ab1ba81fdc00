"""Issue events end to end: PyGithub over HTTP to the fake GitHub, litellm to the fake model."""

from __future__ import annotations

import json
from pathlib import Path

from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.handlers.outcome import HandlerOutcome
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    handler_deps_fixture,  # noqa: F401
    make_deps,
    payload,
    scripted,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI


def _open(
    gh: FakeGitHub, deps: HandlerDeps, number: int = 3, action: str = "opened"
) -> HandlerOutcome:
    return handle_delivery(
        "issues", payload(gh, "issues", action, REPO, number), f"d-{action}", deps
    )


def test_opened_creates_labels_and_exactly_one_comment(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash on empty input", "parse('') raises KeyError.")
    fake_openai.responder = scripted([3, 3, 2], candidate="exact_patch")
    out = _open(fake_github, handler_deps)
    assert out.ok and out.done.comment.action == "created"
    assert set(fake_github.label_names(REPO, 3)) == {
        "clarity: underspecified",
        "has candidate solution",
    }
    created = fake_github.repos[REPO].labels["clarity: underspecified"]
    assert created["color"] == "d93f0b" and created["description"] == "SPICE: clarity 3"
    comments = fake_github.issue_comments(REPO, 3)
    assert len(comments) == 1
    assert comments[0]["user"]["login"] == fake_github.bot_login
    assert "3 · 3 · 2" in comments[0]["body"]
    assert out.done.assessments[0].model_dump(mode="json")["clarity"]["score"] == 3


def test_edited_with_unchanged_text_is_not_revoted(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "parse('') raises KeyError.")
    fake_openai.responder = scripted([1])
    _open(fake_github, handler_deps)
    calls, writes = len(fake_openai.requests), len(fake_github.writes)
    out = _open(fake_github, handler_deps, action="edited")
    assert out.skipped == "unchanged input: not re-voted"
    assert len(fake_openai.requests) == calls and len(fake_github.writes) == writes


def test_edited_text_edits_the_comment_and_swaps_only_our_sibling_label(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks", labels=["bug", "priority: high"])
    fake_openai.responder = scripted([3])
    first = _open(fake_github, handler_deps)
    fake_github.edit_issue(REPO, 3, body="parse('') raises KeyError; expected ValueError.")
    fake_openai.responder = scripted([0])
    out = _open(fake_github, handler_deps, action="edited")
    assert out.done.comment.action == "edited" and out.done.comment.id == first.done.comment.id
    assert len(fake_github.issue_comments(REPO, 3)) == 1
    assert out.done.labels.removed == ["clarity: underspecified"]
    assert set(fake_github.label_names(REPO, 3)) == {
        "bug",
        "priority: high",
        "clarity: well-specified",
    }
    deleted = [w.path for w in fake_github.writes_to("DELETE")]
    assert deleted and all("clarity:" in p for p in deleted)


def test_a_label_a_person_put_on_or_took_off_is_left_as_they_decided(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_openai.responder = scripted([3], candidate="exact_patch")
    _open(fake_github, handler_deps)
    # A maintainer overrides the clarity verdict, flags the issue, and takes off our
    # candidate-solution label.
    fake_github.unlabel_by(REPO, 3, "clarity: underspecified", "maintainer")
    fake_github.label_by(REPO, 3, "clarity: minor-gaps", "maintainer")
    fake_github.label_by(REPO, 3, "triage: needs human", "maintainer")
    fake_github.unlabel_by(REPO, 3, "has candidate solution", "maintainer")
    fake_github.edit_issue(REPO, 3, body="parse('') raises KeyError; the fix is in parse().")
    fake_openai.responder = scripted([0, 0, 0], candidate="exact_patch")
    out = _open(fake_github, handler_deps, action="edited")
    assert out.ok and out.done.labels.added == [] and out.done.labels.removed == []
    assert set(out.done.labels.left) == {
        "clarity: minor-gaps",
        "triage: needs human",
        "has candidate solution",
    }
    assert set(fake_github.label_names(REPO, 3)) == {"clarity: minor-gaps", "triage: needs human"}
    assert fake_github.writes_to("DELETE") == []


def test_our_own_labels_still_follow_the_verdict_beside_a_persons_other_labels(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    # Same name as ours, but put on by a person before we ever ran: theirs.
    fake_github.add_issue(REPO, 3, "Crash", "it breaks", labels=["triage: needs human"])
    fake_openai.responder = scripted([3])
    _open(fake_github, handler_deps)
    fake_github.edit_issue(REPO, 3, body="parse('') raises KeyError; expected ValueError.")
    fake_openai.responder = scripted([0])
    out = _open(fake_github, handler_deps, action="edited")
    assert out.done.labels.removed == ["clarity: underspecified"]
    assert out.done.labels.added == ["clarity: well-specified"]
    assert out.done.labels.left == ["triage: needs human"]
    assert "triage: needs human" in fake_github.label_names(REPO, 3)


def test_the_latest_issue_text_is_assessed_not_the_payload(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Old title", "old body")
    event = payload(fake_github, "issues", "opened", REPO, 3)
    fake_github.edit_issue(REPO, 3, title="New title", body="new body from the API")
    handle_delivery("issues", event, "d1", handler_deps)
    prompt = fake_openai.requests[0]["messages"][-1]["content"]
    assert "new body from the API" in prompt and "old body" not in prompt


def test_ignored_author_and_disabled_pipeline_write_nothing(
    fake_github: FakeGitHub, handler_deps: HandlerDeps, fake_openai: FakeOpenAI
) -> None:
    fake_github.add_issue(REPO, 4, "Bump lodash", "bump", author="dependabot[bot]")
    out = _open(fake_github, handler_deps, number=4)
    assert out.skipped == "author 'dependabot[bot]' is ignored"
    fake_github.put_file(REPO, ".github/spice.yml", "pipelines:\n  issues: false\n")
    fake_github.add_issue(REPO, 5, "Crash", "body")
    out = _open(fake_github, make_deps(fake_github, fake_openai), number=5)
    assert out.skipped and "disabled" in out.skipped
    assert fake_github.writes == [] and fake_openai.requests == []


def test_dry_run_computes_and_writes_nothing(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    deps = make_deps(fake_github, fake_openai, dry_run=True)
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_openai.responder = scripted([2])
    out = _open(fake_github, deps)
    assert out.ok and out.dry_run and out.done.comment.action == "planned"
    assert out.done.labels.added == ["clarity: ambiguous"] and out.done.comment.body
    assert fake_github.writes == []


def test_comment_modes(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.put_file(REPO, ".github/spice.yml", "comment_mode: when-actionable\n")
    fake_github.add_issue(REPO, 3, "Clear", "parse('') raises KeyError; expected ValueError.")
    fake_github.add_issue(REPO, 4, "Vague", "it breaks")
    fake_openai.responder = scripted([0])
    quiet = _open(fake_github, handler_deps, number=3)
    fake_openai.responder = scripted([3])
    loud = _open(fake_github, handler_deps, number=4)
    assert quiet.done.comment is None and fake_github.label_names(REPO, 3) == [
        "clarity: well-specified"
    ]
    assert loud.done.comment.action == "created" and len(fake_github.issue_comments(REPO, 4)) == 1
    assert fake_github.issue_comments(REPO, 3) == []


def test_comment_mode_never_labels_without_commenting(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.put_file(REPO, ".github/spice.yml", "comment_mode: never\nlabel_prefix: 'spice/'\n")
    fake_github.add_issue(REPO, 3, "Vague", "it breaks")
    fake_openai.responder = scripted([3])
    out = _open(fake_github, handler_deps)
    assert out.ok and fake_github.issue_comments(REPO, 3) == []
    assert fake_github.label_names(REPO, 3) == ["spice/clarity: underspecified"]


def test_invalid_config_gives_one_clear_comment_and_no_votes(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.put_file(REPO, ".github/spice.yml", "votes: 99\ncomment_mode: loud\nunknown: 1\n")
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    first = _open(fake_github, handler_deps)
    second = _open(fake_github, handler_deps, action="edited")
    for out in (first, second):
        assert out.failure and out.failure.message.startswith("invalid .github/spice.yml")
    comments = fake_github.issue_comments(REPO, 3)
    assert len(comments) == 1  # said once, left unchanged the second time
    assert not any(w.method == "PATCH" for w in fake_github.writes)
    for word in ("`votes`", "`comment_mode`", "`unknown`", ".github/spice.yml"):
        assert word in comments[0]["body"]
    assert fake_openai.requests == [] and fake_github.label_names(REPO, 3) == []


def test_invalid_config_is_not_spread_over_ordinary_comments_or_refused_commands(
    fake_github: FakeGitHub, handler_deps: HandlerDeps
) -> None:
    fake_github.put_file(REPO, ".github/spice.yml", "votes: 99\n")
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.set_permission(REPO, "maintainer", "write")
    fake_github.set_permission(REPO, "visitor", "read")

    def comment(body: str, author: str) -> HandlerOutcome:
        event = payload(fake_github, "issue_comment", "created", REPO, 3, body=body, author=author)
        return handle_delivery("issue_comment", event, f"c-{author}-{body}", handler_deps)

    chatter = comment("Same here, on 3.12.", "visitor")
    assert chatter.skipped == "no /spice command in the comment" and chatter.ok
    refused = comment("/spice relabel", "visitor")
    assert refused.failure and fake_github.issue_comments(REPO, 3) == []
    asked = comment("/spice relabel", "maintainer")
    assert asked.failure and "invalid .github/spice.yml" in asked.failure.message
    assert len(fake_github.issue_comments(REPO, 3)) == 1


def test_config_is_read_from_the_default_branch_only(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.put_file(REPO, ".github/spice.yml", "dry_run: true\n", ref="feature")
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    out = _open(fake_github, handler_deps)
    assert not out.dry_run and out.done.comment.action == "created"


def test_unhandled_events_are_skipped_without_calls(
    fake_github: FakeGitHub, handler_deps: HandlerDeps, shared_data: Path
) -> None:
    hooks = shared_data / "webhooks"
    labeled = json.loads((hooks / "issues" / "labeled.payload.json").read_text())
    out = handle_delivery("issues", labeled, "l", handler_deps)  # someone else's label
    assert out.ok and out.skipped == "not a label of ours"
    for event, name in [
        ("installation", "created.payload.json"),
        ("ping", "payload.json"),
        ("pull_request", "closed.payload.json"),
    ]:
        out = handle_delivery(
            event, json.loads((hooks / event / name).read_text()), "u", handler_deps
        )
        assert out.ok and out.skipped and out.skipped.endswith("is not handled")
    assert fake_github.requests == []

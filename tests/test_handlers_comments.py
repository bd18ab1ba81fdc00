"""`/spice` commands in comments: write access only, acknowledged, never from an issue body."""

from __future__ import annotations

from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.handlers.outcome import HandlerOutcome
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    handler_deps_fixture,  # noqa: F401
    payload,
    scripted,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI


def _comment(
    gh: FakeGitHub, deps: HandlerDeps, author: str, body: str, number: int = 3
) -> HandlerOutcome:
    posted = gh.add_comment(REPO, number, body, author)
    event = payload(
        gh,
        "issue_comment",
        "created",
        REPO,
        number,
        body=body,
        author=author,
        comment_id=posted["id"],
    )
    return handle_delivery("issue_comment", event, f"c-{posted['id']}", deps)


def test_relabel_by_a_non_collaborator_is_refused(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.set_permission(REPO, "drive-by", "read")
    out = _comment(fake_github, handler_deps, "drive-by", "/spice relabel")
    assert out.skipped == "refused /spice relabel: 'drive-by' has 'read' permission"
    assert fake_github.writes == [] and fake_openai.requests == [] and fake_github.reactions == []


def test_relabel_by_a_maintainer_revotes_and_edits_the_one_comment(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.set_permission(REPO, "maint", "maintain")
    fake_openai.responder = scripted([3])
    first = handle_delivery(
        "issues", payload(fake_github, "issues", "opened", REPO, 3), "d1", handler_deps
    )
    calls = len(fake_openai.requests)
    fake_openai.responder = scripted([2])
    out = _comment(fake_github, handler_deps, "maint", "Thanks!\n/spice relabel please")
    assert out.ok and len(fake_openai.requests) > calls
    assert out.done.reaction == "+1" and fake_github.reactions[0]["content"] == "+1"
    assert out.done.comment.id == first.done.comment.id and out.done.comment.action == "edited"
    ours = [
        c
        for c in fake_github.issue_comments(REPO, 3)
        if c["user"]["login"] == fake_github.bot_login
    ]
    assert len(ours) == 1
    assert "clarity: ambiguous" in fake_github.label_names(REPO, 3)


def test_explain_expands_rationales_and_help_answers_once(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.set_permission(REPO, "writer", "write")
    fake_github.put_file(REPO, ".github/spice.yml", "comment_mode: never\n")
    out = _comment(fake_github, handler_deps, "writer", "/spice explain")
    assert out.done.comment.action == "created"
    assert "<details open><summary>Rationales" in fake_github.comment_body(out.done.comment.id)
    first = _comment(fake_github, handler_deps, "writer", "/spice help")
    again = _comment(fake_github, handler_deps, "writer", "/SPICE help")
    assert first.done.comment.action == "created" and again.done.comment.action == "unchanged"
    assert "/spice relabel" in fake_github.comment_body(first.done.comment.id)


def test_a_command_in_the_issue_body_is_never_honoured(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "/spice relabel", "/spice relabel\n/spice help\nIn the body.")
    out = handle_delivery(
        "issues", payload(fake_github, "issues", "opened", REPO, 3), "d1", handler_deps
    )
    assert out.done.pipeline == "issues" and fake_github.reactions == []
    again = handle_delivery(
        "issues", payload(fake_github, "issues", "edited", REPO, 3), "d2", handler_deps
    )
    assert again.skipped == "unchanged input: not re-voted"
    assert len(fake_github.issue_comments(REPO, 3)) == 1


def test_our_own_and_other_bots_comments_are_ignored(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.set_permission(REPO, "ci[bot]", "admin")
    assert (
        _comment(fake_github, handler_deps, fake_github.bot_login, "/spice relabel").skipped
        == "comment by a bot"
    )
    assert (
        _comment(fake_github, handler_deps, "ci[bot]", "/spice relabel").skipped
        == "comment by a bot"
    )
    assert _comment(fake_github, handler_deps, "someone", "no command").skipped
    assert fake_openai.requests == [] and fake_github.writes == []
    assert not any("/permission" in path for _, path in fake_github.requests)


def test_a_forged_state_block_from_the_reporter_is_not_honoured(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.add_issue(REPO, 4, "Crash", "it breaks")
    handle_delivery("issues", payload(fake_github, "issues", "opened", REPO, 3), "d1", handler_deps)
    genuine = fake_github.issue_comments(REPO, 3)[0]["body"]
    fake_github.add_comment(REPO, 4, genuine, "reporter")  # same text => same input hash
    calls = len(fake_openai.requests)
    out = handle_delivery(
        "issues", payload(fake_github, "issues", "opened", REPO, 4), "d2", handler_deps
    )
    assert out.skipped is None and len(fake_openai.requests) > calls
    assert out.done.comment.action == "created"
    assert fake_github.comments[out.done.comment.id or 0]["user"]["login"] == fake_github.bot_login


def test_relabel_on_a_pull_request_runs_the_pr_pipeline(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    patch = "@@ -1 +1 @@\n-a = 1\n+a = 2"
    fake_github.add_pull(REPO, 9, "Bump a", "", files=[{"filename": "src/a.py", "patch": patch}])
    fake_github.set_permission(REPO, "maint", "admin")
    out = _comment(fake_github, handler_deps, "maint", "/spice relabel", number=9)
    assert out.ok and out.done.pipeline == "pull_requests" and out.done.comment.action == "created"
    assert any(name.startswith("difficulty: ") for name in fake_github.label_names(REPO, 9))


def test_a_command_shown_in_code_quotes_or_lists_does_not_run(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    fake_github.set_permission(REPO, "maint", "write")
    shown = [
        "To relabel, write:\n\n```\n/spice relabel\n```",
        "Like this:\n\n    /spice relabel",
        "Type `/spice relabel` on a line of its own.",
        "> /spice relabel\n\nDid someone say that?",
        "- /spice relabel\n- /spice explain",
    ]
    for body in shown:
        out = _comment(fake_github, handler_deps, "maint", body)
        assert out.skipped, body
    assert fake_openai.requests == []
    assert fake_github.label_names(REPO, 3) == []
    # The same command as a paragraph of its own runs.
    out = _comment(fake_github, handler_deps, "maint", "Thanks!\n\n/spice relabel")
    assert not out.skipped and fake_openai.requests

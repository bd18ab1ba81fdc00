"""Pull-request events end to end: linked issues, one sticky comment edited on synchronize."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from unidiff import PatchSet

from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.handlers.outcome import HandlerOutcome
from spice_engine.pr.checkout import CheckoutConfig, CheckoutManager
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    handler_deps_fixture,  # noqa: F401
    make_deps,
    payload,
    scripted,
    user_text,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.test_pr_context import make_repo

SOURCE = {
    "filename": "src/widgets/parse.py",
    "patch": "@@ -1,2 +1,4 @@\n def parse(s):\n-    return s\n+    if not s:\n"
    '+        raise ValueError("empty")\n+    return s',
}
TESTS = {
    "filename": "tests/test_parse.py",
    "status": "added",
    "patch": "@@ -0,0 +1,4 @@\n+import pytest\n+def test_empty():\n"
    '+    with pytest.raises(ValueError):\n+        parse("")',
}


def _scores(request: dict[str, Any]) -> list[int]:
    props = (request.get("response_format") or {}).get("schema", {}).get("properties", {})
    return [2, 2, 1] if "counter_example" in props else [1]


def _event(gh: FakeGitHub, deps: HandlerDeps, action: str, number: int = 10) -> HandlerOutcome:
    event = payload(gh, "pull_request", action, REPO, number)
    return handle_delivery("pull_request", event, f"pr-{action}-{len(gh.writes)}", deps)


def test_opened_labels_and_comments_against_linked_issues(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 5, "parse('') returns ''", "It should raise ValueError.")
    fake_github.add_issue(REPO, 7, "Empty input docs", "Document the empty-input error.")
    fake_github.add_pull(
        REPO,
        10,
        "Raise on empty input",
        "Fixes #5",
        files=[SOURCE, TESTS],
        commits=["raise on empty"],
        closing=[(REPO, 7), ("other/repo", 1)],
    )
    fake_github.add_issue(REPO, 11, "unrelated", "")
    fake_openai.responder = scripted(_scores, echo=True)
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok, out.failure
    assert set(fake_github.label_names(REPO, 10)) == {
        "tests: limited",
        "difficulty: 15m-1h",
        "triage: needs human",
    }
    prompts = "\n".join(user_text(r) for r in fake_openai.requests)
    assert "It should raise ValueError." in prompts and "Document the empty-input error." in prompts
    linked = out.done.assessments[0].model_dump(mode="json")["linked_issues"]["same_repo"]
    # #7 is linked only in GitHub (closingIssuesReferences): judged against, so named too.
    assert [(r["number"], r["source"]) for r in linked] == [(5, "body"), (7, "github")]
    body = fake_github.issue_comments(REPO, 10)[0]["body"]
    assert "2 · 2 · 1" in body and "Counter-examples" in body
    assert "Judged against the linked issue(s): \\#5, \\#7" in body


def test_a_pr_linked_only_in_githubs_sidebar_names_the_issue_in_its_comment(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_issue(REPO, 7, "Empty input", "parse('') should raise ValueError.")
    fake_github.add_pull(
        REPO, 10, "Raise on empty input", "", files=[SOURCE, TESTS], closing=[(REPO, 7)]
    )
    fake_openai.responder = scripted(_scores)
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok, out.failure
    body = fake_github.comment_body(out.done.comment.id)
    assert "Judged against the linked issue(s): \\#7" in body


def test_synchronize_edits_the_comment_instead_of_adding_one(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "Raise on empty input", "no linked issue", files=[SOURCE])
    fake_openai.responder = scripted(_scores)
    first = _event(fake_github, handler_deps, "opened")
    assert "No linked issue found" in fake_github.comment_body(first.done.comment.id)
    assert "difficulty: 15m-1h" in fake_github.label_names(REPO, 10)
    fake_github.set_pull_files(REPO, 10, [SOURCE, TESTS])
    second = _event(fake_github, handler_deps, "synchronize")
    assert (
        second.done.comment.action == "edited" and second.done.comment.id == first.done.comment.id
    )
    assert len(fake_github.issue_comments(REPO, 10)) == 1
    assert "tests: limited" in fake_github.label_names(REPO, 10)
    calls = len(fake_openai.requests)
    third = _event(fake_github, handler_deps, "edited")
    assert third.skipped == "unchanged input: not re-voted" and len(fake_openai.requests) == calls


def test_draft_is_skipped_until_ready_for_review(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "WIP", "", files=[SOURCE])
    fake_github.repos[REPO].pulls[10]["draft"] = True
    assert str(_event(fake_github, handler_deps, "opened").skipped).startswith("draft")
    fake_github.repos[REPO].pulls[10]["draft"] = False
    assert _event(fake_github, handler_deps, "ready_for_review").done.comment.action == "created"


def test_missing_linked_issue_and_graphql_refusal_degrade_with_warnings(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "Fix", "Fixes #99999", files=[SOURCE, TESTS])
    fake_github.fail_next(
        403, message="Resource not accessible by integration", path_contains="/graphql"
    )
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok and out.done.comment.action == "created"
    assert out.done.warnings == [
        "closingIssuesReferences unavailable (403): keywords only",
        "linked issue #99999 not found",
    ]
    body = fake_github.comment_body(out.done.comment.id)
    assert "No linked issue found" in body and "linked issue \\#99999 not found" in body


def _files(diff: str) -> list[dict[str, str]]:
    """The PR files API's shape: one entry per file, `patch` holding its hunks only."""
    return [
        {"filename": f.path, "status": "modified", "patch": "".join(str(h) for h in f)}
        for f in PatchSet(diff)
    ]


def test_the_app_reads_the_repository_at_the_prs_base_from_its_own_clone(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    origin, base, diff = make_repo(tmp_path)
    fake_github.use_git_repo(REPO, origin)
    fake_github.add_issue(REPO, 5, "Tax rate", "PriceBook.total should take a tax rate.")
    fake_github.add_pull(REPO, 10, "Rate", "Fixes #5", files=_files(diff), base_sha=base)
    deps = make_deps(fake_github, fake_openai)
    deps.checkouts = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "checkouts"))
    fake_openai.responder = scripted(_scores)
    out = _event(fake_github, deps, "opened")
    assert out.ok, out.failure
    assert (
        out.done.assessments[0].model_dump(mode="json")["context"]["mode"] == "repository"
        and out.done.warnings == []
    )
    prompt = user_text(fake_openai.requests[0])
    assert "<repository_map>" in prompt
    # The touched file as it was at the base, before the fix.
    tax = prompt.split('<file path="shop/tax.py" role="source">')[1].split("</file>")[0]
    assert "def apply_tax(cents):" in tax
    clone = deps.checkouts.path_for(REPO)
    assert (clone / "shop" / "tax.py").read_text().startswith('"""')
    assert fake_github.bot_token not in (clone / ".git" / "config").read_text()


def test_a_clone_that_fails_is_a_warning_and_the_patches_still_judge(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_github.add_pull(REPO, 10, "Raise on empty input", "", files=[SOURCE, TESTS])
    deps = make_deps(fake_github, fake_openai)
    deps.checkouts = CheckoutManager(CheckoutConfig(cache_dir=tmp_path / "checkouts"))
    fake_openai.responder = scripted(_scores)
    out = _event(fake_github, deps, "opened")
    assert out.ok, out.failure
    assert out.done.assessments[0].model_dump(mode="json")["context"]["mode"] == "patches_only"
    assert any("repository context unavailable" in w for w in out.done.warnings)
    assert "repository context unavailable" in fake_github.comment_body(out.done.comment.id)


BIG = {
    "filename": "src/widgets/table.py",
    "patch": "@@ -1,1 +1,1 @@\n-ROWS = 10\n+ROWS = 10_000_000",
    "too_large": True,  # the files API leaves its patch out
}


def test_a_file_too_large_for_the_files_api_comes_from_the_prs_full_diff(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "Bigger tables", "", files=[SOURCE, BIG, TESTS])
    fake_openai.responder = scripted(_scores)
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok and out.done.warnings == []
    assert "+ROWS = 10_000_000" in user_text(fake_openai.requests[0])


def test_a_pr_too_large_for_both_is_judged_without_those_files_and_says_so(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "Bigger tables", "", files=[SOURCE, BIG, TESTS])
    fake_github.repos[REPO].diffs[10] = None  # GitHub answers 406 for the .diff
    fake_openai.responder = scripted(_scores)
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok, out.failure
    assert out.done.warnings == [
        "GitHub gave no diff for src/widgets/table.py (too large): judged without them"
    ]
    assert "ROWS" not in user_text(fake_openai.requests[0])
    assert "src/widgets/table.py" in fake_github.comment_body(out.done.comment.id)


def test_split_difficulty_votes_ask_for_a_person_too(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "Raise on empty input", "", files=[SOURCE, TESTS])

    def scores(request: dict[str, Any]) -> list[int]:
        props = (request.get("response_format") or {}).get("schema", {}).get("properties", {})
        return [0] if "counter_example" in props else [1, 2, 2]

    fake_openai.responder = scripted(scores)
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok, out.failure
    assert set(fake_github.label_names(REPO, 10)) == {
        "tests: complete",
        "difficulty: 1-4h",
        "triage: needs human",
    }


def test_a_pr_with_no_changed_file_says_so_in_its_comment(
    fake_github: FakeGitHub, fake_openai: FakeOpenAI, handler_deps: HandlerDeps
) -> None:
    fake_github.add_pull(REPO, 10, "Empty", "A branch with no change yet.", files=[])
    out = _event(fake_github, handler_deps, "opened")
    assert out.ok and out.skipped and "no changed file" in out.skipped
    [comment] = fake_github.issue_comments(REPO, 10)
    assert "changes no file" in comment["body"] and fake_openai.requests == []
    again = _event(fake_github, handler_deps, "synchronize")
    assert again.ok and len(fake_github.issue_comments(REPO, 10)) == 1  # said once

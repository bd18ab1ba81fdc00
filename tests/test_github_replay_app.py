"""What an outside replay of GitHub found the App getting wrong, each through the whole App
(signed delivery -> stored job -> worker -> outcome on the fake GitHub)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.service.github_app import LiveApp, live_app, live_fixture  # noqa: F401
from tests.test_github_failures_pr import KEY, app_live_fixture, comment, pull  # noqa: F401
from tests.test_handlers_pull_requests import _scores

LABEL = "clarity: underspecified"


def opened(live: LiveApp, number: int = 7) -> None:
    live.gh.add_issue(REPO, number, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, number)


def test_a_token_revoked_before_its_expiry_is_dropped_minted_again_once_and_the_job_done(
    app_live: LiveApp,
) -> None:
    opened(app_live, 7)
    assert app_live.gh.token_requests == 1
    app_live.gh.revoke_tokens_on("/issues/8")
    opened(app_live, 8)
    job = app_live.job(f"{REPO}#8")
    assert job.state == "done", job.error
    assert app_live.gh.label_names(REPO, 8) == [LABEL]
    assert app_live.gh.token_requests == 2  # one new token, not one per call


def test_a_linked_issue_beside_a_graphql_not_found_is_still_used(live: LiveApp) -> None:
    pull(live.gh, closing=[None, (REPO, 7)])  # GitHub: null node + NOT_FOUND error, and #7
    live.model.responder = scripted(_scores)
    live.deliver("pull_request", "opened", REPO, 10)
    assert live.job(KEY).state == "done", live.job(KEY).error
    assert "Judged against the linked issue(s): \\#7" in comment(live)


def test_a_sticky_comment_deleted_by_a_maintainer_is_posted_again(live: LiveApp) -> None:
    opened(live)
    [first] = live.gh.issue_comments(REPO, 7)
    live.gh.delete_comment_before_edit(first["id"])  # our edit will answer 404
    live.gh.edit_issue(REPO, 7, body="`parse('')` raises KeyError; ValueError wanted.")
    live.model.responder = scripted([1])
    live.deliver("issues", "edited", REPO, 7)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    [again] = live.gh.issue_comments(REPO, 7)
    assert again["id"] != first["id"] and "minor" in again["body"].lower()
    assert live.gh.label_names(REPO, 7) == ["clarity: minor-gaps"]


def test_a_job_github_keeps_rate_limiting_fails_after_its_deferral_budget(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    for live in live_app(tmp_path, fake_github, fake_openai, job_max_deferrals=3):
        live.gh.too_many_requests(times=1000, path_contains="/comments")
        opened(live)
        for _ in range(10):  # far more waits than the budget allows
            if live.job(f"{REPO}#7").state != "pending":
                break
            live.run_scheduled()
        job = live.job(f"{REPO}#7")
        assert job.state == "failed"
        assert "wait 3 times" in (job.error or "") and "rate_limit_secondary" in (job.error or "")
        assert live.scheduled_delays() == []


def test_an_empty_repository_answering_409_has_no_config(live: LiveApp) -> None:
    live.gh.empty_repository(REPO)  # GitHub: 409 "Git Repository is empty."
    opened(live)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert live.gh.label_names(REPO, 7) == [LABEL]


def test_a_graphql_rate_limit_is_recorded_as_a_rate_limit(live: LiveApp) -> None:
    pull(live.gh, closing=[(REPO, 7)])
    live.gh.graphql_rate_limit(reset_in_s=3600)
    live.model.responder = scripted(_scores)
    live.deliver("pull_request", "opened", REPO, 10)
    error = live.job(KEY).error or ""
    assert "rate_limit_primary" in error and "400" not in error, error
    assert "API rate limit already exceeded" in error


def test_githubs_422_detail_is_kept_in_the_jobs_error(live: LiveApp) -> None:
    detail = "body is too long (maximum is 65536 characters)"
    error = {"resource": "IssueComment", "code": "custom", "field": "body", "message": detail}
    body = {"message": "Validation Failed", "errors": [error], "documentation_url": ""}
    live.gh.fail_next(422, times=5, method="POST", path_contains="/comments", body=body)
    opened(live)
    job = live.job(f"{REPO}#7")
    assert job.state == "failed" and detail in (job.error or ""), job.error


def test_comments_are_listed_once_per_run_a_hundred_a_page(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    for n in range(130):
        live.gh.add_comment(REPO, 7, f"me too {n}", "someone")
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, 7)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    listings = [p for m, p in live.gh.requests if m == "GET" and p.endswith("/7/comments")]
    assert len(listings) == 2  # 131 comments: two pages of 100, one listing


def test_after_a_rename_the_new_name_is_learned_once(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    first = payload(live.gh, "issues", "opened", REPO, 7)  # sent before the rename
    live.gh.rename_repository(REPO, "octo-org/gadgets")
    live.post("issues", first)
    first["action"] = "reopened"
    live.post("issues", first)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    old = [p for _, p in live.gh.requests if p.startswith(f"/repos/{REPO}")]
    assert old == [f"/repos/{REPO}"]  # one redirect, then every call under the new name
    assert live.gh.label_names("octo-org/gadgets", 7) == [LABEL]

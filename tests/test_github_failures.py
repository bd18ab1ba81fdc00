"""GitHub's failure shapes through the whole App (signed delivery -> job -> outcome), issues.

Each: nothing crashes, nothing is lost, a wait GitHub asks for is honoured (scheduled, never
slept: a test asserts the wait, then runs the retry at once), the repository keeps working.
"""

from __future__ import annotations

import pytest

from tests.fakes.github_failures import EMPTY_REPOSITORY
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.service.github_app import LiveApp, live_fixture  # noqa: F401

LABEL = "clarity: underspecified"


def opened(live: LiveApp, number: int = 7) -> None:
    live.gh.add_issue(REPO, number, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, number)


def labelled(live: LiveApp, number: int = 7) -> bool:
    return live.gh.label_names(REPO, number) == [LABEL]


@pytest.mark.parametrize("message", [EMPTY_REPOSITORY, "No commit found for the ref main"])
def test_an_empty_repository_is_labelled_with_the_default_config(
    live: LiveApp, message: str
) -> None:
    live.gh.empty_repository(REPO, message)
    opened(live)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert labelled(live) and len(live.gh.issue_comments(REPO, 7)) == 1


def test_an_issue_whose_author_was_deleted_is_labelled(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.gh.ghost_author(REPO, 7)
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, 7)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert labelled(live)


def test_a_command_from_a_deleted_account_is_ignored_without_error(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash", "It breaks.")
    # The comment's author was deleted: GitHub sends `comment.user: null`.
    data = payload(live.gh, "issue_comment", "created", REPO, 7, body="/spice relabel", author="x")
    data["comment"]["user"] = None
    live.post("issue_comment", data)
    job = live.job(f"{REPO}#7/comment/1")
    assert job.state == "done" and job.error is None
    assert live.model.requests == [] and live.gh.writes == []


@pytest.mark.parametrize("status", [502, 503])
def test_a_server_error_is_retried_and_the_job_completes(live: LiveApp, status: int) -> None:
    live.gh.fail_next(status, times=2, path_contains="/labels")
    opened(live)
    assert live.job(f"{REPO}#7").state == "done" and labelled(live)


def test_a_429_without_retry_after_waits_a_minute_then_completes(live: LiveApp) -> None:
    live.gh.too_many_requests(path_contains="/comments")
    opened(live)
    job = live.job(f"{REPO}#7")
    assert job.state == "pending" and "429" in (job.error or "")
    [delay] = live.scheduled_delays()
    assert delay >= 59  # GitHub: at least a minute when it names no wait
    live.run_scheduled()
    assert live.job(f"{REPO}#7").state == "done" and labelled(live)
    assert len(live.gh.issue_comments(REPO, 7)) == 1


def test_an_abuse_limit_waits_its_retry_after_then_completes(live: LiveApp) -> None:
    live.gh.abuse_limit(retry_after=90, path_contains="/labels")
    opened(live)
    [delay] = live.scheduled_delays()
    assert 88 <= delay <= 91
    live.run_scheduled()
    assert live.job(f"{REPO}#7").state == "done" and labelled(live)


def test_a_short_secondary_limit_is_waited_out_within_the_job(live: LiveApp) -> None:
    live.gh.fail_secondary_rate_limit(retry_after=1)
    opened(live)
    assert live.scheduled_delays() == []
    assert live.job(f"{REPO}#7").state == "done" and labelled(live)


def test_a_renamed_repository_gets_its_comment_and_labels(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    data = payload(live.gh, "issues", "opened", REPO, 7)  # sent before the rename
    live.gh.rename_repository(REPO, "octo-org/gadgets")
    live.post("issues", data)
    assert live.job(f"{REPO}#7").state == "done", live.job(f"{REPO}#7").error
    assert live.gh.label_names("octo-org/gadgets", 7) == [LABEL]
    [comment] = live.gh.issue_comments("octo-org/gadgets", 7)
    assert comment["user"]["login"] == live.gh.bot_login


def test_long_lists_are_followed_page_by_page(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    for n in range(104):
        live.gh.add_comment(REPO, 7, f"me too {n}", "someone")
    for n in range(105):  # our labels' definitions sit past the first page of the listing
        live.gh._label(live.gh.repos[REPO], f"area-{n}", "ededed", None)
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, 7)
    live.gh.edit_issue(REPO, 7, body="`parse('')` raises KeyError; ValueError wanted.")
    live.model.responder = scripted([1])
    live.deliver("issues", "edited", REPO, 7)
    ours = [c for c in live.gh.issue_comments(REPO, 7) if c["user"]["login"] == live.gh.bot_login]
    assert len(ours) == 1  # found on page 2 and edited, not posted twice
    assert live.gh.label_names(REPO, 7) == ["clarity: minor-gaps"]
    listings = [path for method, path in live.gh.requests if method == "GET"]
    # Two pages of 100, listed once per run.
    assert listings.count(f"/repos/{REPO}/issues/7/comments") == 4


def test_healthz_metrics_and_logs_show_rate_limit_waits_and_failures_by_kind(
    live: LiveApp, caplog: pytest.LogCaptureFixture
) -> None:
    live.gh.too_many_requests(path_contains="/comments")
    live.gh.fail_next(502, path_contains="/labels")
    opened(live)
    live.run_scheduled()
    health = live.client.get("/healthz").json()["github"]
    assert health["failures"]["rate_limit_secondary"] >= 1
    assert health["failures"]["server_error"] >= 1
    assert health["rate_limit_waits"] == {"rate_limit_secondary/deferred": 1}
    assert health["rate_limit_wait_s"] >= 60
    scrape = live.client.get("/metrics").text
    assert (
        'spice_github_rate_limit_waits_total{kind="rate_limit_secondary",where="deferred"} 1.0'
        in scrape
    )
    assert 'spice_github_failures_total{kind="server_error"}' in scrape
    assert any(
        "rate_limit_secondary" in r.getMessage() and "deferred" in r.getMessage()
        for r in caplog.records
    )

"""GitHub's failure shapes through the whole App: pull requests, merges harvested, tokens."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.store.engine import database_url
from tests.fakes.github_fixtures import REPO, fake_github_fixture, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.harvest_support import store_at
from tests.service.github_app import LiveApp, live_app, live_fixture  # noqa: F401
from tests.test_github_auth import _pem_pair
from tests.test_handlers_pull_requests import SOURCE, TESTS, _scores

KEY = f"{REPO}#10"
MERGE_KEY = f"{REPO}#10/merged"


def pull(gh: FakeGitHub, body: str = "", closing: list[Any] | None = None) -> None:
    gh.add_issue(REPO, 5, "parse('') returns ''", "It should raise ValueError.")
    gh.add_issue(REPO, 7, "Empty input docs", "Document the empty-input error.")
    gh.add_pull(
        REPO,
        10,
        "Raise on empty input",
        body,
        files=[SOURCE, TESTS],
        commits=["raise"],
        closing=closing,
    )


def comment(live: LiveApp) -> str:
    [only] = live.gh.issue_comments(REPO, 10)
    return str(only["body"])


def test_a_deleted_linked_issue_is_a_warning_not_a_failed_job(live: LiveApp) -> None:
    pull(live.gh, "Fixes #5. Fixes #7.")
    live.gh.delete_issue(REPO, 5)
    live.model.responder = scripted(_scores)
    live.deliver("pull_request", "opened", REPO, 10)
    assert live.job(KEY).state == "done", live.job(KEY).error
    assert "#5 not found" in comment(live).replace("\\#", "#")
    assert "Judged against the linked issue(s): \\#7" in comment(live)


def test_a_graphql_rate_limit_defers_the_pr_until_the_reset_then_uses_githubs_links(
    live: LiveApp,
) -> None:
    pull(live.gh, closing=[(REPO, 7)])  # linked only in GitHub's sidebar
    live.gh.graphql_rate_limit(reset_in_s=3600)
    live.model.responder = scripted(_scores)
    live.deliver("pull_request", "opened", REPO, 10)
    assert live.job(KEY).state == "pending" and live.gh.issue_comments(REPO, 10) == []
    [delay] = live.scheduled_delays()
    assert 3500 <= delay <= 3601  # until GitHub's reset, not a blind retry
    live.run_scheduled()
    assert live.job(KEY).state == "done", live.job(KEY).error
    assert "Judged against the linked issue(s): \\#7" in comment(live)


def test_null_nodes_commit_authors_and_pr_author_are_read_safely(live: LiveApp) -> None:
    pull(live.gh, closing=[None, (REPO, 7)])
    live.gh.repos[REPO].commits[10][0]["commit"]["author"] = None
    live.model.responder = scripted(_scores)
    live.deliver("pull_request", "opened", REPO, 10)
    assert live.job(KEY).state == "done", live.job(KEY).error
    assert "Judged against the linked issue(s): \\#7" in comment(live)


def merge(live: LiveApp, body: str, closing: list[Any]) -> None:
    pull(live.gh, body, closing)
    live.gh.edit_issue(REPO, 10, state="closed")
    stamp = "2026-02-01T00:00:00Z"
    live.gh.repos[REPO].pulls[10].update(merged=True, merged_at=stamp, closed_at=stamp)
    live.model.responder = scripted([1, 2, 1])
    live.deliver("pull_request", "closed", REPO, 10)


def harvested(live: LiveApp) -> list[Any]:
    return store_at(database_url(live.stack.settings)).instances()


def test_a_graphql_not_found_on_a_merge_still_harvests_it_by_its_keywords(
    live: LiveApp,
) -> None:
    live.gh.graphql_not_found()
    merge(live, "Fixes #5", [])
    assert live.job(MERGE_KEY).state == "done", live.job(MERGE_KEY).error
    [row] = harvested(live)
    assert "It should raise ValueError." in row.instance["problem_statement"]


def test_a_graphql_rate_limit_on_a_merge_loses_nothing(live: LiveApp) -> None:
    live.gh.graphql_rate_limit(reset_in_s=600)
    merge(live, "", [(REPO, 7)])  # linked only in GitHub: "no linked issue" would lose it
    assert harvested(live) == []
    [delay] = live.scheduled_delays()
    assert delay >= 500
    live.run_scheduled()
    assert live.job(MERGE_KEY).state == "done", live.job(MERGE_KEY).error
    [row] = harvested(live)
    assert "Document the empty-input error." in row.instance["problem_statement"]


@pytest.fixture(name="app_live")
def app_live_fixture(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> Iterator[LiveApp]:
    private, public = _pem_pair()
    fake_github.jwt_public_key = public
    app_mode = {"github_app_id": fake_github.app_id, "github_private_key": private}
    yield from live_app(tmp_path, fake_github, fake_openai, github_token=None, **app_mode)


def test_an_installation_token_expiring_mid_job_does_not_fail_the_job(app_live: LiveApp) -> None:
    gh = app_live.gh
    gh.token_ttl_s = 1.0  # every token dies a second after it is minted
    gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    votes = scripted([3])
    app_live.model.responder = lambda request: dataclasses.replace(votes(request), delay_s=1.2)
    app_live.deliver("issues", "opened", REPO, 7)
    job = app_live.job(f"{REPO}#7")
    assert job.state == "done", job.error
    assert gh.label_names(REPO, 7) == ["clarity: underspecified"]
    assert gh.token_requests >= 2  # a fresh token after the model's wait

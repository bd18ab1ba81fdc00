"""Edges an outside GitHub replay found, each through the whole App (signed delivery -> stored
job -> worker -> the fake GitHub): an organisation renamed while a job waits, a `/spice`
command taken back before its job ran, and the API version every request names."""

from __future__ import annotations

import json

from tests.contract.rest import version_problem
from tests.contract.webhooks import assert_webhook_valid
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.service.deliveries import signed_headers
from tests.service.github_app import LiveApp, live_fixture  # noqa: F401
from tests.test_github_failures_pr import KEY, comment, pull
from tests.test_handlers_pull_requests import _scores

RENAMED = "octo-renamed/widgets"


def renamed_org(gh: FakeGitHub) -> dict[str, object]:
    """GitHub's `installation_target.renamed` for our organisation, as it sends it."""
    account = gh.user("octo-renamed", "Organization")
    body = {
        "action": "renamed",
        "target_type": "Organization",
        "account": account,
        "changes": {"login": {"from": "octo-org"}},
        "installation": {"id": 1, "node_id": "x"},
        "sender": gh.user("octo-admin"),
    }
    return assert_webhook_valid("installation_target", body)


def test_an_organisation_renamed_while_the_job_waits_is_followed_by_repository_id(
    live: LiveApp,
) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    live.post("issues", payload(live.gh, "issues", "opened", REPO, 7), run=False)
    live.gh.rename_owner("octo-org", "octo-renamed")  # the old name now answers a bare 404
    raw = json.dumps(renamed_org(live.gh)).encode()
    headers = signed_headers(raw, "installation_target", "d-renamed")
    assert live.client.post("/webhook", content=raw, headers=headers).status_code == 200
    live.run_queued()
    job = live.job(f"{REPO}#7")
    assert job.state == "done", job.error
    assert live.gh.label_names(RENAMED, 7) == ["clarity: underspecified"]
    [comment] = live.gh.issue_comments(RENAMED, 7)
    assert "underspecified" in comment["body"].lower()
    repo_id = live.gh.repos[RENAMED].data["id"]
    assert ("GET", f"/repositories/{repo_id}") in live.gh.requests
    by_id = [p for m, p in live.gh.requests if p == f"/repositories/{repo_id}"]
    assert len(by_id) == 1  # found again once; every later call goes to the new name


def test_a_404_that_stands_is_not_mistaken_for_a_rename(live: LiveApp) -> None:
    pull(live.gh, "Fixes #5. Fixes #99999.")  # a typo: GitHub answers 404
    live.model.responder = scripted(_scores)
    live.deliver("pull_request", "opened", REPO, 10)
    assert live.job(KEY).state == "done", live.job(KEY).error
    assert "#99999 not found" in comment(live).replace("\\#", "#")
    repo_id = live.gh.repos[REPO].data["id"]
    asked = [p for _, p in live.gh.requests if p == f"/repositories/{repo_id}"]
    assert len(asked) == 1  # asked once whether the repository moved: it had not


def _command(live: LiveApp, body: str, deleted: bool) -> int:
    live.gh.set_permission(REPO, "maintainer", "write")
    posted = live.gh.add_comment(REPO, 7, body, "maintainer")
    said = {"body": body, "author": "maintainer", "comment_id": posted["id"]}
    event = payload(live.gh, "issue_comment", "created", REPO, 7, **said)
    live.post("issue_comment", event, run=False)
    if deleted:
        live.gh.delete_comment(posted["id"])
    live.run_queued()
    return int(posted["id"])


def test_a_command_whose_comment_was_deleted_before_its_job_ran_is_skipped(
    live: LiveApp,
) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    comment_id = _command(live, "/spice relabel", deleted=True)
    job = live.job(f"{REPO}#7/comment/{comment_id}")
    assert job.state == "done" and job.error is None
    assert live.statuses() == {"d-1": "done"}
    assert live.gh.reactions == [] and live.gh.label_names(REPO, 7) == []
    assert live.model.requests == []  # nothing voted for a command taken back


def test_a_command_still_there_runs(live: LiveApp) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    comment_id = _command(live, "/spice relabel", deleted=False)
    assert live.job(f"{REPO}#7/comment/{comment_id}").state == "done"
    assert [r["content"] for r in live.gh.reactions] == ["+1"]
    assert live.gh.label_names(REPO, 7) == ["clarity: underspecified"]


def test_every_request_names_the_api_version_and_one_without_it_is_a_violation(
    live: LiveApp,
) -> None:
    live.gh.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    live.model.responder = scripted([3])
    live.deliver("issues", "opened", REPO, 7)
    assert live.job(f"{REPO}#7").state == "done"
    assert live.gh.violations == []  # the fake records any request without the header
    assert version_problem("GET", "/repos/a/b", {}) == (
        "GET /repos/a/b: no X-GitHub-Api-Version: 2022-11-28"
    )
    assert version_problem("GET", "/repos/a/b", {"X-GitHub-Api-Version": "2022-11-28"}) is None

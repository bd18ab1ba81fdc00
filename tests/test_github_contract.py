"""The fake GitHub is refereed by GitHub's own descriptions: a drift fails, naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from github import Auth, Github, GithubException

from app.github.graphql import CLOSING_QUERY
from tests.contract.excerpt import EXCERPT, FULL
from tests.contract.graphql_check import graphql_problems
from tests.contract.rest import rest_contract
from tests.contract.webhooks import WebhookContractError, assert_webhook_valid
from tests.fakes.github_fixtures import REPO, payload
from tests.fakes.github_server import ContractViolation, FakeGitHub


def client(gh: FakeGitHub) -> Github:
    return Github(auth=Auth.Token(gh.bot_token), base_url=gh.base_url, retry=None)


def test_an_answer_missing_a_required_field_fails_naming_operation_and_field() -> None:
    gh = FakeGitHub()
    with pytest.raises(ContractViolation) as caught, gh:
        gh.add_issue(REPO, 3, "Title", "Body")
        del gh.repos[REPO].issues[3]["node_id"]  # the deliberately broken fake
        assert client(gh).get_repo(REPO, lazy=True).get_issue(3).title == "Title"
    assert "issues/get (GET /repos/{owner}/{repo}/issues/{issue_number}) response 200" in str(
        caught.value
    )
    assert "field $.node_id" in str(caught.value)


def test_a_request_to_an_undocumented_path_fails_naming_it() -> None:
    gh = FakeGitHub()
    with pytest.raises(ContractViolation, match=r"undocumented operation GET /repos/o/r/nope"), gh:
        gh.add_repo("o/r")
        with pytest.raises(GithubException):
            client(gh).requester.requestJsonAndCheck("GET", "/repos/o/r/nope")


def test_a_request_body_github_refuses_fails_naming_the_field() -> None:
    gh = FakeGitHub()
    with pytest.raises(ContractViolation, match=r"issues/add-labels .* field \$\.labels"), gh:
        gh.add_issue(REPO, 3)
        url = f"/repos/{REPO}/issues/3/labels"
        client(gh).requester.requestJsonAndCheck("POST", url, input={"labels": []})


def test_an_undocumented_query_parameter_fails() -> None:
    found = rest_contract().check_request("GET", f"/repos/{REPO}/pulls", {"sorted": "1"}, None)
    assert found == [
        "pulls/list (GET /repos/{owner}/{repo}/pulls) request: undocumented query parameter "
        "'sorted'"
    ]


def test_an_error_status_github_never_sends_for_the_operation_fails() -> None:
    found = rest_contract().check_response("GET", f"/repos/{REPO}/labels", 418, {"message": "x"})
    assert found and "status not documented" in found[0]


def test_graphql_query_answer_and_variables_are_checked_against_the_schema() -> None:
    variables = {"owner": "o", "name": "r", "number": 1}
    nodes = [{"number": 2, "repository": {"nameWithOwner": "o/r"}}, None]
    good = {"data": {"repository": {"pullRequest": {"closingIssuesReferences": {"nodes": nodes}}}}}
    assert graphql_problems(CLOSING_QUERY, variables, good) == []
    assert graphql_problems(CLOSING_QUERY.replace("nameWithOwner", "fullName"), variables, good)
    nodes[0] = {"number": None, "repository": {"nameWithOwner": "o/r"}}
    [problem] = graphql_problems(CLOSING_QUERY, variables, good)
    assert "non-nullable field Issue.number" in problem


def test_a_webhook_payload_github_would_not_send_is_refused() -> None:
    with FakeGitHub() as gh:
        gh.add_issue(REPO, 3, "Title", "Body")
        body = payload(gh, "issue_comment", "created", REPO, 3, body="/spice", author="m")
        body["comment"]["user"] = None  # nullable in GitHub's schema: accepted
        assert_webhook_valid("issue_comment", body)
        del body["comment"]["id"]
        with pytest.raises(WebhookContractError, match=r"issue-comment-created: field \$\.comment"):
            assert_webhook_valid("issue_comment", body)


@pytest.mark.skipif(not FULL.is_dir(), reason="../shared/data/github (full descriptions) absent")
def test_the_excerpt_equals_a_fresh_cut_of_the_full_descriptions() -> None:
    from tests.contract.excerpt import cut

    for name, text in cut().items():
        stored = (EXCERPT / name).read_text()
        assert stored == text, f"{name} is stale: run `python -m tests.contract.excerpt`"


def test_the_excerpt_is_small_and_says_where_it_comes_from() -> None:
    sizes = {p.name: p.stat().st_size for p in Path(EXCERPT).iterdir()}
    assert sum(sizes.values()) < 400_000
    notice = (EXCERPT / "README.md").read_text()
    assert "octokit" in notice and "MIT" in notice

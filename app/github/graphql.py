"""GitHub's GraphQL answers as they come: data beside errors is kept, not thrown away.

PyGithub's `graphql_query` raises on any `errors`, so one inaccessible node (a `NOT_FOUND`
beside a valid linked issue) lost the whole answer. Here only an answer with no data, or a
rate limit, is a failure; otherwise the data is read and `complete` says whether it is whole.
"""

from __future__ import annotations

from typing import Any

from github import GithubException
from github.Requester import Requester
from pydantic import BaseModel

from app.github.models import closing_refs_in

CLOSING_QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 50) { nodes { number repository { nameWithOwner } } }
    }
  }
}"""


class GraphQLFailed(GithubException):
    """GitHub answered a GraphQL query with errors and nothing usable (or a rate limit);
    `status` is the HTTP status, 200 as GitHub sends it."""


class ClosingRefs(BaseModel):
    refs: list[tuple[str, int]]
    complete: bool
    """False when GitHub reported errors (nodes it would not resolve): an empty `refs` then
    does not mean "links to nothing"."""


def _messages(errors: list[Any]) -> str:
    return "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors)


def graphql(
    requester: Requester, query: str, variables: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """(headers, data, complete); raises `GraphQLFailed` when there is no data to read or
    GitHub's limit is spent (the retry policy reads the wait from its headers)."""
    headers, body = requester.requestJsonAndCheck(
        "POST", requester.graphql_url, input={"query": query, "variables": variables}
    )
    answer = body if isinstance(body, dict) else {}
    errors, data = answer.get("errors") or [], answer.get("data")
    limited = any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors)
    if limited or not isinstance(data, dict):
        raise GraphQLFailed(200, body, headers, _messages(errors) or "no data")
    return headers, data, not errors


def closing_refs(
    requester: Requester, repo: str, number: int
) -> tuple[dict[str, Any], ClosingRefs]:
    """The issues GitHub links to a PR as closing it, read from whatever data came back."""
    owner, name = repo.split("/", 1)
    variables = {"owner": owner, "name": name, "number": number}
    headers, data, complete = graphql(requester, CLOSING_QUERY, variables)
    return headers, ClosingRefs(refs=closing_refs_in({"data": data}), complete=complete)

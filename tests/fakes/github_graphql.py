"""The fake GitHub's GraphQL endpoint: `closingIssuesReferences`, with GitHub's partial data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakes.github_routes import Answer, Request
    from tests.fakes.github_server import Json

NOT_FOUND: tuple[int, Any] = (404, {"message": "Not Found"})


def graphql_route(req: Request) -> Answer:
    query = str(req.body.get("query", ""))
    variables: Mapping[str, Any] = req.body.get("variables") or {}
    if "closingIssuesReferences" not in query:
        return 200, {"errors": [{"message": "the fake GitHub does not support this query"}]}
    repo = req.fake.repos.get(f"{variables.get('owner')}/{variables.get('name')}")
    number = int(variables.get("number", 0))
    if repo is None or number not in repo.pulls:
        return 200, {"data": {"repository": None}, "errors": [{"message": "not found"}]}
    nodes = [  # None: an issue this token may not see, which GitHub gives as null
        {"number": ref[1], "repository": {"nameWithOwner": ref[0]}} if ref else None
        for ref in repo.closing[number]
    ]
    pull = {"closingIssuesReferences": {"nodes": nodes}}
    answer: Json = {"data": {"repository": {"pullRequest": pull}}}
    # Each null comes with its error beside the data that could be read (partial data).
    where = ["repository", "pullRequest", "closingIssuesReferences", "nodes"]
    errors = [
        {
            "type": "NOT_FOUND",
            "path": [*where, i],
            "locations": [{"line": 5, "column": 49}],
            "message": "Could not resolve to an Issue.",
        }
        for i, node in enumerate(nodes)
        if node is None
    ]
    return 200, answer | ({"errors": errors} if errors else {})

"""What the handlers read from GitHub, as plain models, and the readers of GitHub's answers
that must survive its nullable fields (deleted accounts, null GraphQL nodes, redirects)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel


class IssueData(BaseModel):
    number: int
    title: str
    body: str
    author: str
    author_type: str = "User"
    labels: list[str] = []
    is_pull_request: bool = False
    moved_to: tuple[str, int] | None = None
    """Where the issue lives now when it was transferred to another repository (GitHub
    redirects the old path to it): (repository, number)."""


class PullData(IssueData):
    draft: bool = False
    base_sha: str
    head_sha: str
    base_ref: str
    clone_url: str | None = None
    """Of the base repository (where the base commit is)."""
    fork: bool = False
    """The head is in another repository than the base."""


class PullFile(BaseModel):
    filename: str
    status: str
    patch: str | None = None
    """None for binary files, and for text diffs too large for GitHub's files API."""
    previous_filename: str | None = None
    changes: int = 0
    """Lines added plus removed: a text file whose `patch` is missing has some."""


class CommitData(BaseModel):
    sha: str
    message: str


class CommentData(BaseModel):
    id: int
    body: str
    author: str


class LabelEvent(BaseModel):
    """A label put on (`added`) or taken off an issue or PR, and by whom."""

    label: str
    actor: str
    added: bool


MAX_REDIRECTS = 3
"""A write to a renamed repository is followed this many times at most."""


def is_redirect(data: Any) -> bool:
    return isinstance(data, dict) and "id" not in data and "url" in data and "message" in data


def issue_home(url: str | None) -> tuple[str, int] | None:
    """(repository, number) of an issue's API `url` (`.../repos/{owner}/{name}/issues/{n}`)."""
    found = _ISSUE_URL.search(url or "")
    return (found.group(1), int(found.group(2))) if found else None


_ISSUE_URL = re.compile(r"/repos/([^/]+/[^/]+)/issues/(\d+)$")


def login_of(user: Any) -> str:
    """A deleted account shows as `ghost`, as on GitHub (REST gives `user: null`)."""
    return str(user.login) if user is not None and user.login else "ghost"


def comment_data(data: dict[str, Any]) -> CommentData:
    return CommentData(
        id=data["id"],
        body=data.get("body") or "",
        author=str((data.get("user") or {}).get("login") or "ghost"),
    )


def closing_refs_in(data: Any) -> list[tuple[str, int]]:
    """`closingIssuesReferences` of a GraphQL answer; null nodes (issues this token may not
    see) are skipped."""
    root = data.get("data") if isinstance(data, dict) else None
    pull = ((root or {}).get("repository") or {}).get("pullRequest") or {}
    nodes = (pull.get("closingIssuesReferences") or {}).get("nodes") or []
    return [
        (str(n["repository"]["nameWithOwner"]), int(n["number"]))
        for n in nodes
        if isinstance(n, dict) and n.get("number") is not None and n.get("repository")
    ]

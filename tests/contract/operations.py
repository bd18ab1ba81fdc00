"""The GitHub operations the code uses: the only ones excerpted into tests/data/github/."""

from __future__ import annotations

REST_OPERATIONS: list[tuple[str, str]] = [
    ("get", "/user"),
    ("get", "/app"),
    ("post", "/app/installations/{installation_id}/access_tokens"),
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("get", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("post", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/reactions"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("delete", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/events"),
    ("get", "/repos/{owner}/{repo}/labels"),
    ("post", "/repos/{owner}/{repo}/labels"),
    ("get", "/repos/{owner}/{repo}/labels/{name}"),
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/commits"),
    ("get", "/repos/{owner}/{repo}/collaborators/{username}/permission"),
    ("get", "/repos/{owner}/{repo}/contents/{path}"),
    ("post", "/repos/{owner}/{repo}/check-runs"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
]
"""(method, path template) as in GitHub's REST description."""

WEBHOOK_EVENTS: list[str] = [
    "issues-opened",
    "issues-edited",
    "issues-reopened",
    "issues-labeled",
    "issues-unlabeled",
    "issue-comment-created",
    "pull-request-opened",
    "pull-request-edited",
    "pull-request-reopened",
    "pull-request-synchronize",
    "pull-request-ready-for-review",
    "pull-request-closed",
    "pull-request-labeled",
    "pull-request-unlabeled",
    "installation-target-renamed",
]
"""`{event}-{action}` keys of the webhook description: the deliveries the App acts on."""

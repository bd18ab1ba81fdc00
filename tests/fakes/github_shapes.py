"""REST objects in the shapes GitHub's description requires (users, repositories, issues, PRs).

Built here rather than copied from webhook examples: webhook objects differ from REST ones,
and the default suite must not need ../shared. The contract checks (tests/contract/) keep
these honest.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

Json = dict[str, Any]
STAMP = "2026-01-01T00:00:00Z"
_REPO_URLS = [
    "archive",
    "assignees",
    "blobs",
    "branches",
    "collaborators",
    "comments",
    "commits",
    "compare",
    "contents",
    "contributors",
    "deployments",
    "downloads",
    "events",
    "forks",
    "git_commits",
    "git_refs",
    "git_tags",
    "hooks",
    "issue_comment",
    "issue_events",
    "issues",
    "keys",
    "labels",
    "languages",
    "merges",
    "milestones",
    "notifications",
    "pulls",
    "releases",
    "stargazers",
    "statuses",
    "subscribers",
    "subscription",
    "tags",
    "teams",
    "trees",
]


def user(base_url: str, login: str, kind: str | None = None) -> Json:
    kind = kind or ("Bot" if login.endswith("[bot]") else "User")
    url = f"{base_url}/users/{quote(login)}"
    return {
        "login": login,
        "id": abs(hash(login)) % 10**8,
        "node_id": f"U_{login}",
        "type": kind,
        "url": url,
        "html_url": f"https://github.com/{quote(login)}",
        "avatar_url": "https://avatars.githubusercontent.com/u/1",
        "gravatar_id": "",
        "site_admin": False,
        **{
            f"{name}_url": f"{url}/{name}"
            for name in [
                "events",
                "followers",
                "following",
                "gists",
                "starred",
                "subscriptions",
                "organizations",
                "repos",
                "received_events",
            ]
        },
    }


def repository(base_url: str, repo_id: int, full_name: str, owner: Json, branch: str) -> Json:
    name = full_name.split("/", 1)[1]
    url = f"{base_url}/repos/{full_name}"
    counts = "forks forks_count open_issues open_issues_count size stargazers_count watchers "
    counts += "watchers_count network_count subscribers_count"
    return {
        "id": repo_id,
        "node_id": f"R_{repo_id}",
        "name": name,
        "full_name": full_name,
        "owner": owner,
        "private": False,
        "fork": False,
        "description": None,
        "homepage": None,
        "language": "Python",
        "license": None,
        "mirror_url": None,
        "default_branch": branch,
        "url": url,
        "html_url": f"https://github.com/{full_name}",
        # Never github.com: a clone of a repository with no `use_git_repo` fails at once.
        "clone_url": f"/nonexistent/fake-github/{full_name}.git",
        "git_url": f"git://github.com/{full_name}.git",
        "ssh_url": f"git@github.com:{full_name}.git",
        "svn_url": f"https://github.com/{full_name}",
        **{f"{part}_url": f"{url}/{part}" for part in _REPO_URLS},
        **{
            flag: True
            for flag in ("has_issues", "has_projects", "has_wiki", "has_pages", "has_downloads")
        },
        "has_discussions": False,
        "topics": [],
        "visibility": "public",
        "archived": False,
        "disabled": False,
        **dict.fromkeys(counts.split(), 0),
        "created_at": STAMP,
        "updated_at": STAMP,
        "pushed_at": STAMP,
    }


def issue(base_url: str, issue_id: int, repo: str, number: int, author: Json) -> Json:
    url = f"{base_url}/repos/{repo}/issues/{number}"
    return {
        "id": issue_id,
        "node_id": f"I_{issue_id}",
        "number": number,
        "title": "",
        "body": "",
        "user": author,
        "labels": [],
        "state": "open",
        "locked": False,
        "assignee": None,
        "assignees": [],
        "active_lock_reason": None,
        "milestone": None,
        "comments": 0,
        "reactions": reactions(url),
        "closed_at": None,
        "created_at": STAMP,
        "updated_at": STAMP,
        "author_association": "NONE",
        "url": url,
        "repository_url": f"{base_url}/repos/{repo}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "labels_url": f"{url}/labels{{/name}}",
        "html_url": f"https://github.com/{repo}/issues/{number}",
    }


def reactions(url: str) -> Json:
    kinds = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")
    return {"url": f"{url}/reactions", "total_count": 0, **dict.fromkeys(kinds, 0)}


def branch(label: str, ref: str, sha: str, repo: Json) -> Json:
    return {"label": label, "ref": ref, "sha": sha, "user": repo["owner"], "repo": repo}


def pull(base_url: str, pull_id: int, repo: Json, number: int, author: Json) -> Json:
    full = repo["full_name"]
    url = f"{base_url}/repos/{full}/pulls/{number}"
    html = f"https://github.com/{full}/pull/{number}"
    links = {"self": url, "html": html, "issue": f"{base_url}/repos/{full}/issues/{number}"}
    links |= {"comments": f"{links['issue']}/comments", "commits": f"{url}/commits"}
    links |= {"review_comments": f"{url}/comments", "statuses": f"{repo['url']}/statuses/x"}
    links |= {"review_comment": f"{base_url}/repos/{full}/pulls/comments{{/number}}"}
    return {
        "id": pull_id,
        "node_id": f"PR_{pull_id}",
        "number": number,
        "title": "",
        "body": "",
        "user": author,
        "labels": [],
        "state": "open",
        "locked": False,
        "draft": False,
        "merged": False,
        "mergeable": None,
        "mergeable_state": "unknown",
        "merged_by": None,
        "merge_commit_sha": None,
        "maintainer_can_modify": False,
        "auto_merge": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "active_lock_reason": None,
        "milestone": None,
        "author_association": "CONTRIBUTOR",
        **dict.fromkeys(
            ["additions", "deletions", "changed_files", "comments", "commits", "review_comments"], 0
        ),
        "closed_at": None,
        "merged_at": None,
        "created_at": STAMP,
        "updated_at": STAMP,
        "url": url,
        "html_url": html,
        "issue_url": links["issue"],
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "comments_url": links["comments"],
        "commits_url": links["commits"],
        "review_comments_url": links["review_comments"],
        "review_comment_url": links["review_comment"],
        "statuses_url": links["statuses"],
        "_links": {key: {"href": href} for key, href in links.items()},
    }


def comment(
    base_url: str, comment_id: int, repo: str, number: int, body: str, author: Json
) -> Json:
    return {
        "id": comment_id,
        "node_id": f"IC_{comment_id}",
        "url": f"{base_url}/repos/{repo}/issues/comments/{comment_id}",
        "html_url": f"https://github.com/{repo}/issues/{number}#issuecomment-{comment_id}",
        "issue_url": f"{base_url}/repos/{repo}/issues/{number}",
        "body": body,
        "user": author,
        "created_at": STAMP,
        "updated_at": STAMP,
        "author_association": "NONE",
        "performed_via_github_app": None,
        "reactions": reactions(f"{base_url}/repos/{repo}/issues/comments/{comment_id}"),
    }

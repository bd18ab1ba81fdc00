"""GitHub's answers when things go wrong, as scriptable behaviours of the fake GitHub.

Each shape is one GitHub documents (or is known to send) and a happy-path fake never does:
an empty repository's 404, a deleted issue's 410, a renamed repository's redirects, GraphQL
rate limits as HTTP 200 with `errors`, 429 without `Retry-After`, abuse-detection waits,
5xx, null users. Mixed into `FakeGitHub`.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

if TYPE_CHECKING:
    from tests.fakes.github_server import RepoState

Json = dict[str, Any]
EMPTY_REPOSITORY = "Git Repository is empty."
"""GitHub's contents API on a repository with no commits: 409 with this message."""
SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
ABUSE = "You have triggered an abuse detection mechanism. Please wait a few minutes before you try again."


class FailureShapes:
    repos: dict[str, RepoState]
    renamed: dict[str, str]
    transferred: dict[tuple[str, int], tuple[str, int]]
    installations_refused: dict[int, tuple[int, str]]

    def add_issue(self, *args: Any, **kwargs: Any) -> Json:  # defined by Seeding
        raise NotImplementedError

    def fail_next(self, *args: Any, **kwargs: Any) -> None:  # defined by FakeGitHub
        raise NotImplementedError

    def revoke_installation_tokens(self) -> None:  # defined by FakeGitHub
        raise NotImplementedError

    def delete_comment(self, comment_id: int) -> None:  # defined by FakeGitHub
        raise NotImplementedError

    def empty_repository(
        self, repo: str, message: str = EMPTY_REPOSITORY, status: int = 409
    ) -> None:
        """The contents API answers `status` with `message`: GitHub's 409 "Git Repository is
        empty.", or a 404 such as "No commit found for the ref main" (PyGithub raises either
        as a plain GithubException)."""
        self.repos[repo].empty_message = (status, message)

    def revoke_tokens_on(self, path_contains: str) -> None:
        """The next request whose path has `path_contains` finds every installation token
        revoked (a 401 "Bad credentials" long before its expiry), as when an owner changes the
        App's permissions."""
        self.fail_next(0, 1, path_contains=path_contains, before=self.revoke_installation_tokens)

    def delete_comment_before_edit(self, comment_id: int) -> None:
        """A maintainer deletes the comment after we listed it and before our edit (404)."""
        self.fail_next(
            0,
            1,
            method="PATCH",
            path_contains=f"/comments/{comment_id}",
            before=lambda: self.delete_comment(comment_id),
        )

    def delete_issue(self, repo: str, number: int) -> None:
        """The issue answers 410 Gone."""
        self.repos[repo].deleted.add(number)

    def rename_repository(self, old: str, new: str) -> None:
        """Requests to `old` are redirected, as GitHub does, to `/repositories/{id}/...` with
        the query kept: 301 for reads (PyGithub follows, dropping the query), 307 for writes
        (PyGithub does not: it takes the redirect's body for the answer)."""
        state = self.repos.pop(old)
        state.data.update(full_name=new, name=new.split("/", 1)[1])
        state.data["url"] = state.data["url"].replace(f"/repos/{old}", f"/repos/{new}")
        self.repos[new] = state
        self.renamed[old] = new

    def rename_owner(self, old: str, new: str) -> None:
        """An organisation renamed: its repositories are `new/...` from now on and their old
        names answer a bare 404 (GitHub redirects no API request of an organisation's old
        name); by id (`/repositories/{id}`) they answer as before."""
        for full_name in [n for n in self.repos if n.split("/", 1)[0] == old]:
            state = self.repos.pop(full_name)
            for part in ("data", "issues", "pulls"):
                setattr(state, part, _renamed(getattr(state, part), old, new))
            self.repos[f"{new}/{full_name.split('/', 1)[1]}"] = state

    def transfer_issue(self, repo: str, number: int, to: str, new_number: int) -> Json:
        """A maintainer moves the issue to `to` (as `new_number`): GitHub then redirects the
        old issue's paths, reads (301) and writes (307), to the new issue by repository id."""
        old = self.repos[repo].issues.pop(number)
        moved = self.add_issue(to, new_number, old["title"], old["body"], old["user"]["login"])
        self.transferred[(repo, number)] = (to, new_number)
        return moved

    def uninstall(self, installation: int = 1) -> None:
        """The App is uninstalled: its tokens die and no new one is granted (404)."""
        self.installations_refused[installation] = (404, "Not Found")
        self.revoke_installation_tokens()

    def suspend(self, installation: int = 1) -> None:
        """The installation is suspended: its tokens die and new ones are refused (403)."""
        self.installations_refused[installation] = (403, "This installation has been suspended")
        self.revoke_installation_tokens()

    def unsuspend(self, installation: int = 1) -> None:
        self.installations_refused.pop(installation, None)

    def graphql_rate_limit(self, times: int = 1, reset_in_s: int = 3600) -> None:
        """GraphQL's primary limit: HTTP 200, `errors` of type RATE_LIMITED, no budget left."""
        self.fail_next(
            200,
            times,
            path_contains="/graphql",
            headers={
                "X-RateLimit-Limit": "5000",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Used": "5000",
                "X-RateLimit-Reset": str(int(time.time()) + reset_in_s),
                "X-RateLimit-Resource": "graphql",
            },
            body={
                "errors": [
                    {
                        "type": "RATE_LIMITED",
                        "message": "API rate limit already exceeded for installation ID 1.",
                    }
                ]
            },
        )

    def graphql_not_found(self, times: int = 1) -> None:
        """GraphQL's NOT_FOUND as GitHub shapes it: `data` with a null and an error `type`."""
        self.fail_next(
            200,
            times,
            path_contains="/graphql",
            body={
                "data": {"repository": None},
                "errors": [
                    {
                        "type": "NOT_FOUND",
                        "path": ["repository"],
                        "locations": [{"line": 3, "column": 3}],
                        "message": "Could not resolve to a Repository with the name 'x'.",
                    }
                ],
            },
        )

    def too_many_requests(self, times: int = 1, path_contains: str | None = None) -> None:
        """429 with no `Retry-After`: GitHub wants at least a minute before the next try."""
        self.fail_next(429, times, message=SECONDARY, path_contains=path_contains)

    def abuse_limit(self, retry_after: int = 90, path_contains: str | None = None) -> None:
        self.fail_next(403, 1, retry_after, ABUSE, path_contains=path_contains)

    def ghost_author(self, repo: str, number: int) -> None:
        """The author's account was deleted: the issues API gives `user: null` (the pulls
        API and webhooks keep a user object, per GitHub's schemas)."""
        self.repos[repo].issues[number]["user"] = None


def _renamed(node: Any, old: str, new: str) -> Any:
    """`node` with the owner `old` named `new` in its logins, full names and URLs."""
    if isinstance(node, dict):
        return {k: _renamed(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [_renamed(v, old, new) for v in node]
    if isinstance(node, str):
        if node == old:
            return new
        node = node.replace(f"/{old}/", f"/{new}/")
        return f"{new}/{node[len(old) + 1 :]}" if node.startswith(f"{old}/") else node
    return node


def redirect(
    fake: Any, method: str, path: str, query: dict[str, str]
) -> tuple[int, Json, dict[str, str]] | None:
    """The redirect a renamed repository's (or a transferred issue's) old path answers."""
    for (repo, number), (to, new_number) in fake.transferred.items():
        prefix = f"/repos/{repo}/issues/{number}"
        if path == prefix or path.startswith(prefix + "/"):
            repo_id = fake.repos[to].data["id"]
            location = f"{fake.base_url}/repositories/{repo_id}/issues/{new_number}"
            return _moved(method, location + path[len(prefix) :], query)
    for old, new in fake.renamed.items():
        prefix = f"/repos/{old}"
        if path == prefix or path.startswith(prefix + "/"):
            repo_id = fake.repos[new].data["id"]
            location = f"{fake.base_url}/repositories/{repo_id}{path[len(prefix) :]}"
            return _moved(method, location, query)
    return None


def _moved(method: str, location: str, query: dict[str, str]) -> tuple[int, Json, dict[str, str]]:
    location += f"?{urlencode(query)}" if query else ""
    status = 301 if method == "GET" else 307
    body = {"message": "Moved Permanently", "url": location, "documentation_url": ""}
    return status, body, {"Location": location}


def by_name(fake: Any, path: str) -> str:
    """`/repositories/{id}/...` (where a rename redirects) as `/repos/{owner}/{name}/...`."""
    match = re.match(r"/repositories/(\d+)(/.*)?$", path)
    if match is None:
        return path
    for full_name, state in fake.repos.items():
        if state.data["id"] == int(match.group(1)):
            return f"/repos/{full_name}{match.group(2) or ''}"
    return path


def paginate(
    fake: Any, path: str, query: dict[str, str], items: list[Any]
) -> tuple[int, list[Any], dict[str, str]]:
    """A page of a list answer with GitHub's `Link` header (30 a page unless `per_page`)."""
    per_page = int(query.get("per_page") or 30)
    page = int(query.get("page") or 1)
    chunk = items[(page - 1) * per_page : page * per_page]
    last = max(1, -(-len(items) // per_page))
    rest = "".join(f"&{k}={v}" for k, v in query.items() if k not in ("page", "per_page"))
    base = f"{fake.base_url}{path}?per_page={per_page}{rest}"
    links = [f'<{base}&page={page + 1}>; rel="next"'] if page < last else []
    links.append(f'<{base}&page={last}>; rel="last"')
    return 200, chunk, {"Link": ", ".join(links)}

"""Merged PRs and their issues through the GitHub REST + GraphQL API: paginated, budgeted."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from github import Auth, Github, GithubException
from pydantic import BaseModel

from app.github.api_version import GITHUB_API_VERSION
from app.github.auth import TokenRenewal, renewing
from app.github.client import PullFile
from app.github.graphql import ClosingRefs, closing_refs
from app.github.retries import RetryPolicy, call_with_retries, is_transient, policy_from_settings
from app.harvest.budget import RateBudget, budget_for
from app.settings import Settings, plain_github_token

log = logging.getLogger(__name__)

T = TypeVar("T")
PER_PAGE = 100
_NEXT = re.compile(r'<[^>]*>;\s*rel="next"')


class PullSummary(BaseModel):
    """One closed PR as the listing returns it; `page` is where the listing found it."""

    number: int
    title: str = ""
    body: str = ""
    created_at: str
    merged_at: str | None = None
    base_sha: str
    page: int = 1


class CommitInfo(BaseModel):
    sha: str
    message: str
    date: str | None
    """Author date (ISO 8601): when the work was done, not when it was rebased; None when
    GitHub gives neither person (both are nullable)."""


class IssueInfo(BaseModel):
    number: int
    title: str
    body: str
    is_pull_request: bool = False


class CommentInfo(BaseModel):
    id: int
    body: str
    author: str
    created_at: str
    updated_at: str


class HarvestSource(Protocol):
    """What harvesting reads from a code host."""

    def closed_pulls(self, repo: str, start_page: int = 1) -> Iterator[PullSummary]: ...
    def pull_commits(self, repo: str, number: int) -> list[CommitInfo]: ...
    def pull_files(self, repo: str, number: int) -> list[PullFile]: ...
    def pull_full_diff(self, repo: str, number: int) -> str: ...
    def closing_refs(self, repo: str, number: int) -> ClosingRefs: ...
    def issue(self, repo: str, number: int) -> IssueInfo | None: ...
    def issue_comments(self, repo: str, number: int) -> list[CommentInfo]: ...


def _commit_date(commit: dict[str, Any]) -> str | None:
    """Author date, else committer date: GitHub may give either person, or both, as null."""
    person = commit.get("author") or commit.get("committer") or {}
    return str(person["date"]) if person.get("date") else None


def _is_merged(pull: dict[str, Any]) -> bool:
    return bool(pull.get("merged_at"))


class GitHubHarvestSource:
    """`HarvestSource` on PyGithub's requester; one client per thread, one budget overall."""

    def __init__(
        self,
        token: Callable[[], str],
        api_url: str,
        budget: RateBudget,
        policy: RetryPolicy | None = None,
        timeout_s: int = 30,
        per_page: int = PER_PAGE,
        renewal: TokenRenewal | None = None,
    ) -> None:
        self._token, self._api_url, self._budget = token, api_url, budget
        self._renewal = renewal
        """App mode: a token GitHub refuses before its expiry is replaced, once per call."""
        self._names: dict[str, str] = {}
        self._policy = policy or RetryPolicy()
        self._timeout = timeout_s
        self._per_page = per_page
        self._local = threading.local()

    def _github(self) -> Github:
        token = self._token()
        gh = getattr(self._local, "gh", None)
        # Installation tokens expire hourly: the provider renews them, the client follows.
        if gh is None or getattr(self._local, "token", None) != token:
            # Pacing is the budget's job: PyGithub's own 0.25 s spacing would cap a worker at
            # 4 requests a second, and its urllib3 retries would hide from ours.
            gh = Github(
                auth=Auth.Token(token),
                base_url=self._api_url,
                retry=None,
                timeout=self._timeout,
                seconds_between_requests=None,
                seconds_between_writes=None,
                api_version=GITHUB_API_VERSION,
            )
            self._local.gh, self._local.token = gh, token
        return gh

    def _retried(self, what: str, call: Callable[[], T]) -> T:
        return call_with_retries(self._policy, what, renewing(self._renewal, call))

    def _get(self, url: str, params: dict[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        def call() -> tuple[dict[str, Any], Any]:
            self._budget.acquire()
            headers, data = self._github().requester.requestJsonAndCheck(
                "GET", url, parameters=params
            )
            self._budget.observe(headers)
            return headers, data

        return self._retried(f"GET {url}", call)

    def _repo(self, repo: str) -> str:
        """`/repos/{name}` under the repository's current name, asked once: GitHub answers an
        old name with a 301 that PyGithub follows without the query (`state`, `page`)."""
        if repo not in self._names:
            _, data = self._get(f"/repos/{repo}")
            current = str(data.get("full_name") or repo) if isinstance(data, dict) else repo
            if current.lower() != repo.lower():
                log.warning("%s was renamed %s: reading it under its new name", repo, current)
            self._names[repo] = current
        return f"/repos/{self._names[repo]}"

    def _pages(self, url: str, params: dict[str, Any], start: int = 1) -> Iterator[tuple[int, Any]]:
        """Pages of a list endpoint until its `Link` header has no `next`."""
        page = start
        while True:
            headers, data = self._get(url, {**params, "per_page": self._per_page, "page": page})
            yield page, data
            if not _NEXT.search({k.lower(): v for k, v in headers.items()}.get("link", "")):
                return
            page += 1

    def closed_pulls(self, repo: str, start_page: int = 1) -> Iterator[PullSummary]:
        # Ascending creation order keeps pages stable: new PRs only ever append.
        params = {"state": "closed", "sort": "created", "direction": "asc"}
        for page, items in self._pages(f"{self._repo(repo)}/pulls", params, start_page):
            for pull in items:
                yield PullSummary(
                    number=pull["number"],
                    title=pull.get("title") or "",
                    body=pull.get("body") or "",
                    created_at=pull["created_at"],
                    merged_at=pull.get("merged_at") if _is_merged(pull) else None,
                    base_sha=pull["base"]["sha"],
                    page=page,
                )

    def pull_commits(self, repo: str, number: int) -> list[CommitInfo]:
        commits = []
        for _, items in self._pages(f"{self._repo(repo)}/pulls/{number}/commits", {}):
            for c in items:
                commits.append(
                    CommitInfo(
                        sha=c["sha"],
                        message=c["commit"]["message"],
                        date=_commit_date(c["commit"]),
                    )
                )
        return commits

    def pull_files(self, repo: str, number: int) -> list[PullFile]:
        files = []
        for _, items in self._pages(f"{self._repo(repo)}/pulls/{number}/files", {}):
            files += [
                PullFile(
                    filename=f["filename"],
                    status=f.get("status", "modified"),
                    patch=f.get("patch"),
                    previous_filename=f.get("previous_filename"),
                    changes=int(f.get("changes") or 0),
                )
                for f in items
            ]
        return files

    def pull_full_diff(self, repo: str, number: int) -> str:
        url, headers = (
            f"{self._repo(repo)}/pulls/{number}",
            {"Accept": "application/vnd.github.diff"},
        )

        def call() -> str:
            self._budget.acquire()
            answer, data = self._github().requester.requestJsonAndCheck("GET", url, headers=headers)
            self._budget.observe(answer)
            return str(data.get("data", "")) if isinstance(data, dict) else ""

        return self._retried(f"GET {url}.diff", call)

    def closing_refs(self, repo: str, number: int) -> ClosingRefs:
        """GitHub's links, read from whatever data came back: a `NOT_FOUND` beside them
        makes the answer incomplete, not empty. A rate limit is raised (the PR must not be
        recorded as unlinked and the cursor moved past it)."""
        current = self._repo(repo).removeprefix("/repos/")

        def call() -> ClosingRefs:
            self._budget.acquire()
            headers, found = closing_refs(self._github().requester, current, number)
            self._budget.observe(headers)
            return found

        try:
            found = self._retried(f"graphql closing refs {repo}#{number}", call)
        except GithubException as exc:
            if is_transient(exc) or exc.status not in (200, 400, 404):
                raise
            # GraphQL refused the query or answered no data (old GitHub Enterprise): the
            # keyword parser still links issues; an empty answer is not "no links".
            log.warning("closingIssuesReferences unavailable for %s#%s: %s", repo, number, exc)
            return ClosingRefs(refs=[], complete=False)
        # Links within the repository are named as the caller named it.
        refs = [(repo if r.lower() == current.lower() else r, n) for r, n in found.refs]
        return found.model_copy(update={"refs": refs})

    def issue(self, repo: str, number: int) -> IssueInfo | None:
        try:
            _, data = self._get(f"{self._repo(repo)}/issues/{number}")
        except GithubException as exc:
            if exc.status not in (404, 410):
                raise
            return None  # a reference to an issue that does not exist, or was deleted
        return IssueInfo(
            number=number,
            title=data.get("title") or "",
            body=data.get("body") or "",
            is_pull_request="pull_request" in data and data["pull_request"] is not None,
        )

    def issue_comments(self, repo: str, number: int) -> list[CommentInfo]:
        comments = []
        for _, items in self._pages(f"{self._repo(repo)}/issues/{number}/comments", {}):
            comments += [
                CommentInfo(
                    id=c["id"],
                    body=c.get("body") or "",
                    author=(c.get("user") or {}).get("login", ""),
                    created_at=c["created_at"],
                    updated_at=c.get("updated_at") or c["created_at"],
                )
                for c in items
            ]
        return comments


def source_from_settings(
    settings: Settings, installation_id: int | None = None, per_hour: float | None = None
) -> GitHubHarvestSource:
    """A source authenticated as the App installation, or with the plain token."""
    if settings.github_app_id is not None:
        from app.github.auth import AppCredentials

        if installation_id is None:
            raise ValueError("App mode needs an installation id (--installation-id)")
        creds, inst = AppCredentials(settings), installation_id
        return GitHubHarvestSource(
            lambda: creds.installation_token(inst).token,
            settings.github_api_url,
            budget_for(f"installation:{inst}", per_hour, settings.redis_url),
            policy_from_settings(settings),
            renewal=creds.renewal(inst),
        )
    secret = plain_github_token(settings)
    if secret is None:
        raise ValueError("set SPICE_GITHUB_TOKEN, or SPICE_GITHUB_APP_ID with its private key")
    return GitHubHarvestSource(
        lambda: secret,
        settings.github_api_url,
        budget_for("token", per_hour),
        policy_from_settings(settings),
    )

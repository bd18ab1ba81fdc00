"""The narrow GitHub seam the handlers use (a Protocol), implemented on PyGithub."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from github import Auth, Github, GithubException
from github.IssueEvent import IssueEvent
from github.PaginatedList import PaginatedList

from app.github.auth import (
    ACTION_BOT_LOGIN,
    AppCredentials,
    GitHubAuthError,
    InstallationAuth,
    auth_github,
    token_github,
)
from app.github.diffs import complete_pull_diff as complete_pull_diff
from app.github.diffs import pull_diff as pull_diff
from app.github.models import MAX_REDIRECTS, closing_refs_in, comment_data, is_redirect, login_of
from app.github.models import CommentData as CommentData
from app.github.models import CommitData as CommitData
from app.github.models import IssueData as IssueData
from app.github.models import LabelEvent as LabelEvent
from app.github.models import PullData as PullData
from app.github.models import PullFile as PullFile
from app.github.retries import RetryPolicy, call_with_retries, policy_from_settings
from app.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
CLOSING_QUERY = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      closingIssuesReferences(first: 50) { nodes { number repository { nameWithOwner } } }
    }
  }
}"""


class GitHubRepo(Protocol):
    """One repository as the handlers see it."""

    full_name: str

    @property
    def default_branch(self) -> str: ...
    def get_issue(self, number: int) -> IssueData: ...
    def get_pull(self, number: int) -> PullData: ...
    def pull_files(self, number: int) -> list[PullFile]: ...
    def pull_commits(self, number: int) -> list[CommitData]: ...
    def pull_full_diff(self, number: int) -> str: ...
    def closing_issue_refs(self, number: int) -> list[tuple[str, int]]: ...
    def list_comments(self, number: int) -> list[CommentData]: ...
    def create_comment(self, number: int, body: str) -> CommentData: ...
    def edit_comment(self, comment_id: int, body: str) -> CommentData: ...
    def label_names(self) -> set[str]: ...
    def create_label(self, name: str, color: str, description: str) -> None: ...
    def add_labels(self, number: int, names: list[str]) -> None: ...
    def remove_label(self, number: int, name: str) -> None: ...
    def label_events(self, number: int) -> list[LabelEvent]: ...
    def react_to_comment(self, comment_id: int, content: str) -> None: ...
    def permission(self, login: str) -> str: ...
    def read_default_branch_file(self, path: str) -> str | None: ...
    def git_http_header(self) -> str | None: ...


class GitHubSession(Protocol):
    """An authenticated client: our own identity and access to repositories."""

    @property
    def bot_login(self) -> str: ...
    def repo(self, full_name: str) -> GitHubRepo: ...


class PyGithubRepo:
    """`GitHubRepo` over PyGithub; every call goes through the one retry policy."""

    def __init__(self, gh: Github, full_name: str, policy: RetryPolicy) -> None:
        self._gh, self.full_name, self._policy = gh, full_name, policy
        self._repo = gh.get_repo(full_name, lazy=True)
        self._path = f"/repos/{full_name}"
        self._default_branch: str | None = None

    def _call(self, what: str, func: Callable[[], T]) -> T:
        return call_with_retries(self._policy, f"{what} {self.full_name}", func)

    def _request(self, verb: str, url: str, body: Any = None) -> Any:
        """A REST call. A renamed or transferred repository answers writes with 307 and a
        `Location` (PyGithub would take the redirect's body as the answer): follow it."""
        for _ in range(MAX_REDIRECTS + 1):
            headers, data = self._gh.requester.requestJsonAndCheck(verb, url, input=body)
            location = {k.lower(): v for k, v in headers.items()}.get("location")
            if location is None or not is_redirect(data):
                return data
            log.info("%s %s moved to %s: following", verb, url, location)
            url = location
        raise GithubException(310, data, headers, f"{verb} {url}: too many redirects")

    @property
    def default_branch(self) -> str:
        if self._default_branch is None:
            data = self._call("get repo", lambda: self._request("GET", self._path))
            self._default_branch = str(data["default_branch"])
        return self._default_branch

    def get_issue(self, number: int) -> IssueData:
        def fetch() -> IssueData:
            # Converted inside the retried call: PyGithub objects may fetch lazily on access.
            issue = self._repo.get_issue(number)
            return IssueData(
                number=number,
                title=issue.title or "",
                body=issue.body or "",
                author=login_of(issue.user),
                author_type=(issue.user.type if issue.user else None) or "User",
                labels=[label.name for label in issue.labels],
                is_pull_request=issue.pull_request is not None,
            )

        return self._call("get issue", fetch)

    def get_pull(self, number: int) -> PullData:
        def fetch() -> PullData:
            pr = self._repo.get_pull(number)
            return PullData(
                number=number,
                title=pr.title or "",
                body=pr.body or "",
                author=login_of(pr.user),
                author_type=(pr.user.type if pr.user else None) or "User",
                labels=[label.name for label in pr.labels],
                is_pull_request=True,
                draft=bool(pr.draft),
                base_sha=pr.base.sha,
                head_sha=pr.head.sha,
                base_ref=pr.base.ref,
                clone_url=pr.base.repo.clone_url if pr.base.repo is not None else None,
                fork=_is_fork(pr.head.repo, pr.base.repo),
            )

        return self._call("get pull", fetch)

    def pull_files(self, number: int) -> list[PullFile]:
        def fetch() -> list[PullFile]:
            return [
                PullFile(
                    filename=f.filename,
                    status=f.status,
                    patch=f.patch,
                    previous_filename=f.previous_filename,
                    changes=f.changes or 0,
                )
                for f in self._repo.get_pull(number).get_files()
            ]

        return self._call("pull files", fetch)

    def pull_full_diff(self, number: int) -> str:
        """The PR as GitHub renders its `.diff` (every file; refused with 406 when huge)."""
        url = f"{self._path}/pulls/{number}"
        headers = {"Accept": "application/vnd.github.diff"}

        def fetch() -> str:
            _, data = self._gh.requester.requestJsonAndCheck("GET", url, headers=headers)
            return str((data or {}).get("data", "")) if isinstance(data, dict) else ""

        return self._call("pull diff", fetch)

    def pull_commits(self, number: int) -> list[CommitData]:
        def fetch() -> list[CommitData]:
            commits = self._repo.get_pull(number).get_commits()
            return [CommitData(sha=c.sha, message=c.commit.message) for c in commits]

        return self._call("pull commits", fetch)

    def closing_issue_refs(self, number: int) -> list[tuple[str, int]]:
        owner, name = self.full_name.split("/", 1)
        variables = {"owner": owner, "name": name, "number": number}
        _, data = self._call(
            "graphql closingIssuesReferences",
            lambda: self._gh.requester.graphql_query(CLOSING_QUERY, variables),
        )
        return closing_refs_in(data)

    def list_comments(self, number: int) -> list[CommentData]:
        def fetch() -> list[CommentData]:
            comments = self._repo.get_issue(number).get_comments()
            return [
                CommentData(id=c.id, body=c.body or "", author=login_of(c.user)) for c in comments
            ]

        return self._call("list comments", fetch)

    def create_comment(self, number: int, body: str) -> CommentData:
        # Not retried here: a POST that timed out may have landed. The sticky comment retries
        # the whole find-then-create, which is idempotent.
        data = self._request("POST", f"{self._path}/issues/{number}/comments", {"body": body})
        return comment_data(data)

    def edit_comment(self, comment_id: int, body: str) -> CommentData:
        url = f"{self._path}/issues/comments/{comment_id}"
        data = self._call("edit comment", lambda: self._request("PATCH", url, {"body": body}))
        return comment_data(data)

    def label_names(self) -> set[str]:
        return self._call("list labels", lambda: {lab.name for lab in self._repo.get_labels()})

    def create_label(self, name: str, color: str, description: str) -> None:
        try:
            body = {"name": name, "color": color, "description": description}
            self._call("create label", lambda: self._request("POST", f"{self._path}/labels", body))
        except GithubException as exc:
            if exc.status != 422:  # 422 = created meanwhile by a concurrent run: fine
                raise

    def add_labels(self, number: int, names: list[str]) -> None:
        url = f"{self._path}/issues/{number}/labels"
        self._call("add labels", lambda: self._request("POST", url, {"labels": names}))

    def remove_label(self, number: int, name: str) -> None:
        url = f"{self._path}/issues/{number}/labels/{quote(name, safe='')}"
        try:
            self._call("remove label", lambda: self._request("DELETE", url))
        except GithubException as exc:
            if exc.status != 404:  # 404 = already gone: the goal state is reached
                raise

    def git_http_header(self) -> str | None:
        """For cloning this repository with the session's own token (private repositories)."""
        auth = self._gh.requester.auth
        if isinstance(auth, Auth.Token | InstallationAuth):
            return basic_git_header(auth.token)
        return None

    def label_events(self, number: int) -> list[LabelEvent]:
        """Oldest first. A deleted account shows as `ghost`, as on GitHub."""

        def fetch() -> list[LabelEvent]:
            events = PaginatedList(
                IssueEvent, self._gh.requester, f"{self._path}/issues/{number}/events", None
            )
            return [
                LabelEvent(
                    label=e.label.name,
                    actor=e.actor.login if e.actor is not None else "ghost",
                    added=e.event == "labeled",
                )
                for e in events
                if e.event in ("labeled", "unlabeled") and e.label is not None
            ]

        return self._call("label events", fetch)

    def react_to_comment(self, comment_id: int, content: str) -> None:
        url = f"{self._path}/issues/comments/{comment_id}/reactions"
        self._call("reaction", lambda: self._request("POST", url, {"content": content}))

    def permission(self, login: str) -> str:
        return self._call("permission", lambda: self._repo.get_collaborator_permission(login))

    def read_default_branch_file(self, path: str) -> str | None:
        branch = self.default_branch  # resolved first: retried calls must not nest

        def fetch() -> str | None:
            try:
                content = self._repo.get_contents(path, ref=branch)
            except GithubException as exc:
                # Any 404: no such file, and also "This repository is empty." or "No commit
                # found for the ref" (PyGithub raises those as a plain GithubException).
                if exc.status == 404:
                    return None
                raise
            if isinstance(content, list):
                return None  # a directory
            return content.decoded_content.decode("utf-8", errors="replace")

        return self._call("read file", fetch)


def basic_git_header(token: str) -> str:
    """The header git sends to GitHub's HTTPS remotes for a token (App or personal)."""
    pair = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return f"Authorization: Basic {pair}"


class PyGithubSession:
    """`GitHubSession` for one token."""

    def __init__(self, gh: Github, bot_login: str, policy: RetryPolicy | None = None) -> None:
        self._gh, self._bot_login, self._policy = gh, bot_login, policy or RetryPolicy()

    @property
    def bot_login(self) -> str:
        return self._bot_login

    def repo(self, full_name: str) -> PyGithubRepo:
        return PyGithubRepo(self._gh, full_name, self._policy)


SessionFactory = Callable[[int | None], GitHubSession]


def token_owner(gh: Github, policy: RetryPolicy) -> str | None:
    """Whom a plain token acts as: a personal token's user, or None for the workflow's
    GITHUB_TOKEN and installation tokens (GitHub answers them 403 on `/user`)."""
    try:
        data = call_with_retries(
            policy, "who am I", lambda: gh.requester.requestJsonAndCheck("GET", "/user")[1]
        )
    except GithubException as exc:
        if exc.status in (401, 403, 404):
            return None
        raise
    login = data.get("login") if isinstance(data, dict) else None
    return login if isinstance(login, str) and login else None


def session_factory(settings: Settings, policy: RetryPolicy | None = None) -> SessionFactory:
    """Installation id -> session: App auth when an App id is set, else the plain token."""
    pacing = policy or policy_from_settings(settings)
    if settings.github_app_id is not None:
        creds = AppCredentials(settings)

        def app_session(installation_id: int | None) -> GitHubSession:
            if installation_id is None:
                raise GitHubAuthError("the event has no installation id (App mode needs one)")
            # The token is asked for on every request (cached until shortly before it
            # expires): a job may outlive the token it started with.
            auth = InstallationAuth(creds, installation_id)
            login = settings.bot_login or creds.bot_login()
            return PyGithubSession(auth_github(auth, settings, pacing), login, pacing)

        return app_session
    if settings.github_token is None:
        raise GitHubAuthError("set SPICE_GITHUB_APP_ID (+ private key) or a GitHub token")
    token = settings.github_token.get_secret_value()
    login = settings.bot_login

    def token_session(_installation_id: int | None) -> GitHubSession:
        # Asked on first use, not at start-up: a worker must not need GitHub to boot.
        nonlocal login
        gh = token_github(token, settings, pacing)
        if login is None:
            login = token_owner(gh, pacing) or ACTION_BOT_LOGIN
        return PyGithubSession(gh, login, pacing)

    return token_session


def _is_fork(head: Any, base: Any) -> bool:
    """A head in another repository (or in one deleted since: not ours to trust either)."""
    if head is None or base is None:
        return True
    return str(head.full_name).lower() != str(base.full_name).lower()

"""The GitHub seam (`app.github.seams`) implemented on PyGithub."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote

from github import Auth, Github, GithubException
from github.IssueEvent import IssueEvent
from github.PaginatedList import PaginatedList

from app.github.auth import InstallationAuth, TokenRenewal, renewing
from app.github.check_runs import CheckRunCalls
from app.github.diffs import complete_pull_diff as complete_pull_diff
from app.github.diffs import pull_diff as pull_diff
from app.github.graphql import closing_refs
from app.github.models import CommentData as CommentData
from app.github.models import CommitData as CommitData
from app.github.models import IssueData as IssueData
from app.github.models import LabelEvent as LabelEvent
from app.github.models import PullData as PullData
from app.github.models import PullFile as PullFile
from app.github.models import comment_data, issue_home, login_of
from app.github.repo_location import Renames, RepoLocation
from app.github.retries import RetryPolicy, call_with_retries
from app.github.seams import GitHubRepo as GitHubRepo

log = logging.getLogger(__name__)
T = TypeVar("T")


class PyGithubRepo(CheckRunCalls):
    """`GitHubRepo` over PyGithub; every call goes through the one retry policy. Calls go
    to the repository's current name (`RepoLocation`); `full_name` stays the one asked for."""

    def __init__(
        self,
        gh: Github,
        full_name: str,
        policy: RetryPolicy,
        renewal: TokenRenewal | None = None,
        renames: Renames | None = None,
        repo_id: int | None = None,
    ) -> None:
        self._gh, self.full_name, self._policy = gh, full_name, policy
        self._renewal = renewal
        """App mode: a token GitHub refuses (revoked early) is replaced once per call."""
        self._where = RepoLocation(gh, full_name, renames or Renames(), repo_id)
        self._default_branch: str | None = None

    @property
    def _repo(self) -> Any:
        """PyGithub's repository at the current name (read inside each call: it may change)."""
        return self._where.repo

    def _retried(self, what: str, func: Callable[[], T]) -> T:
        return call_with_retries(
            self._policy, f"{what} {self.full_name}", renewing(self._renewal, func)
        )

    def _call(self, what: str, func: Callable[[], T], retried: bool = True) -> T:
        """`func` (retried unless a write that may have landed); once more when the name
        answered 404 and the repository answers by id under another (an organisation
        renamed while the job waited)."""
        run = (lambda: self._retried(what, func)) if retried else renewing(self._renewal, func)
        try:
            return run()
        except GithubException as exc:
            if exc.status != 404 or not self._where.found_again(self._get):
                raise
        return run()

    def _get(self, url: str) -> Any:
        return self._retried(f"get {url}", lambda: self._where.request("GET", url))

    def _rest(self, verb: str, tail: str, body: Any = None) -> Any:
        """A REST call under the repository's path as it is when the call is made."""
        return self._where.request(verb, self._where.path + tail, body)

    @property
    def default_branch(self) -> str:
        if self._default_branch is None:
            data = self._call("get repo", lambda: self._rest("GET", ""))
            self._default_branch = str(data["default_branch"])
            self._where.learn(data)
        return self._default_branch

    def get_issue(self, number: int) -> IssueData:
        def fetch() -> tuple[IssueData, str]:
            # Converted inside the retried call: PyGithub objects may fetch lazily on access.
            issue = self._repo.get_issue(number)
            data = IssueData(
                number=number,
                title=issue.title or "",
                body=issue.body or "",
                author=login_of(issue.user),
                author_type=(issue.user.type if issue.user else None) or "User",
                labels=[label.name for label in issue.labels],
                is_pull_request=issue.pull_request is not None,
            )
            return data, issue.url

        data, url = self._call("get issue", fetch)
        # After the call: retried calls must not nest.
        moved = self._where.elsewhere(number, issue_home(url), self._get)
        return data.model_copy(update={"moved_to": moved}) if moved else data

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
        headers = {"Accept": "application/vnd.github.diff"}

        def fetch() -> str:
            url = f"{self._where.path}/pulls/{number}"
            _, data = self._gh.requester.requestJsonAndCheck("GET", url, headers=headers)
            return str((data or {}).get("data", "")) if isinstance(data, dict) else ""

        return self._call("pull diff", fetch)

    def pull_commits(self, number: int) -> list[CommitData]:
        def fetch() -> list[CommitData]:
            commits = self._repo.get_pull(number).get_commits()
            return [CommitData(sha=c.sha, message=c.commit.message) for c in commits]

        return self._call("pull commits", fetch)

    def closing_issue_refs(self, number: int) -> list[tuple[str, int]]:
        """Whatever links came back, also beside errors for nodes GitHub would not resolve."""
        _, found = self._call(
            "graphql closingIssuesReferences",
            lambda: closing_refs(self._gh.requester, self.full_name, number),
        )
        return found.refs

    def list_comments(self, number: int) -> list[CommentData]:
        def fetch() -> list[CommentData]:
            comments = self._repo.get_issue(number).get_comments()
            return [
                CommentData(id=c.id, body=c.body or "", author=login_of(c.user)) for c in comments
            ]

        return self._call("list comments", fetch)

    def create_comment(self, number: int, body: str) -> CommentData:
        # Not retried here: a POST that timed out may have landed. The sticky comment retries
        # the whole find-then-create, which is idempotent. A refused token posted nothing.
        tail = f"/issues/{number}/comments"
        data = self._call("create comment", lambda: self._rest("POST", tail, {"body": body}), False)
        return comment_data(data)

    def comment_exists(self, comment_id: int) -> bool:
        """False when the comment was deleted (404), e.g. a command taken back."""
        tail = f"/issues/comments/{comment_id}"
        try:
            self._call("get comment", lambda: self._rest("GET", tail))
        except GithubException as exc:
            if exc.status != 404:
                raise
            return False
        return True

    def edit_comment(self, comment_id: int, body: str) -> CommentData:
        tail = f"/issues/comments/{comment_id}"
        data = self._call("edit comment", lambda: self._rest("PATCH", tail, {"body": body}))
        return comment_data(data)

    def label_names(self) -> set[str]:
        return self._call("list labels", lambda: {lab.name for lab in self._repo.get_labels()})

    def create_label(self, name: str, color: str, description: str) -> None:
        try:
            body = {"name": name, "color": color, "description": description}
            self._call("create label", lambda: self._rest("POST", "/labels", body))
        except GithubException as exc:
            if exc.status != 422:  # 422 = created meanwhile by a concurrent run: fine
                raise

    def add_labels(self, number: int, names: list[str]) -> None:
        tail = f"/issues/{number}/labels"
        self._call("add labels", lambda: self._rest("POST", tail, {"labels": names}))

    def remove_label(self, number: int, name: str) -> None:
        tail = f"/issues/{number}/labels/{quote(name, safe='')}"
        try:
            self._call("remove label", lambda: self._rest("DELETE", tail))
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
                IssueEvent, self._gh.requester, f"{self._where.path}/issues/{number}/events", None
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
        tail = f"/issues/comments/{comment_id}/reactions"
        self._call("reaction", lambda: self._rest("POST", tail, {"content": content}))

    def permission(self, login: str) -> str:
        return self._call("permission", lambda: self._repo.get_collaborator_permission(login))

    def read_default_branch_file(self, path: str) -> str | None:
        branch = self.default_branch  # resolved first: retried calls must not nest

        def fetch() -> str | None:
            try:
                content = self._repo.get_contents(path, ref=branch)
            except GithubException as exc:
                # Any 404: no such file, and also "No commit found for the ref"; 409: "Git
                # Repository is empty." (PyGithub raises those as a plain GithubException).
                if exc.status in (404, 409):
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


def _is_fork(head: Any, base: Any) -> bool:
    """A head in another repository (or in one deleted since: not ours to trust either)."""
    if head is None or base is None:
        return True
    return str(head.full_name).lower() != str(base.full_name).lower()

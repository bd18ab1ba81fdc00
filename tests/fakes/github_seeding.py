"""The fake GitHub's state and how tests seed it: repositories, issues, pull requests, files,
commits, comments, labels, permissions, contents. Mixed into `FakeGitHub`."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.fakes import github_shapes as shapes
from tests.fakes.github_git_shapes import commit_entry, diff_text, file_entry

Json = dict[str, Any]


@dataclass
class RepoState:
    """Everything the fake knows about one repository."""

    data: Json
    issues: dict[int, Json] = field(default_factory=dict)
    """Issues and pull requests share numbers, as on GitHub; PR issues carry `pull_request`."""
    pulls: dict[int, Json] = field(default_factory=dict)
    files: dict[int, list[Json]] = field(default_factory=dict)
    commits: dict[int, list[Json]] = field(default_factory=dict)
    closing: dict[int, list[tuple[str, int] | None]] = field(default_factory=dict)
    labels: dict[str, Json] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    contents: dict[tuple[str, str], str] = field(default_factory=dict)
    diffs: dict[int, str | None] = field(default_factory=dict)
    """Each PR's `.diff`; None: too large for GitHub to render (406)."""
    empty_message: tuple[int, str] | None = None
    """Set: the repository has no commits; the contents API answers this status and message."""
    deleted: set[int] = field(default_factory=set)
    """Issues deleted: 410 Gone."""
    events: dict[int, list[Json]] = field(default_factory=dict)
    """Issue events, oldest first: `labeled` and `unlabeled`, with their actor."""
    check_runs: dict[int, Json] = field(default_factory=dict)
    annotations: dict[int, list[Json]] = field(default_factory=dict)
    """Each check run's annotations, as every write appended them."""
    checks_refused: bool = False
    """The installation has not been granted `checks: write` (403 on check-run writes)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Seeding:
    """Seeding and the state helpers the routes share."""

    repos: dict[str, RepoState]
    comments: dict[int, Json]
    comment_repo: dict[int, tuple[str, int]]
    tokens: dict[str, tuple[str, float]]
    _lock: threading.RLock
    _ids: itertools.count[int]

    @property
    def base_url(self) -> str:  # defined by FakeGitHub
        raise NotImplementedError

    def user(self, login: str, kind: str | None = None) -> Json:
        return shapes.user(self.base_url, login, kind)

    def add_repo(self, full_name: str, default_branch: str = "main") -> RepoState:
        with self._lock:
            if full_name in self.repos:
                return self.repos[full_name]
            owner = full_name.split("/", 1)[0]
            data = shapes.repository(
                self.base_url, next(self._ids), full_name, self.user(owner), default_branch
            )
            self.repos[full_name] = RepoState(data=data)
            return self.repos[full_name]

    def add_issue(
        self,
        repo: str,
        number: int,
        title: str = "",
        body: str | None = "",
        author: str = "reporter",
        labels: list[str] | None = None,
        labeled_by: str = "maintainer",
    ) -> Json:
        with self._lock:
            state = self.add_repo(repo)
            issue = shapes.issue(self.base_url, next(self._ids), repo, number, self.user(author))
            issue.update(title=title, body=body)
            issue.pop("pull_request", None)
            state.issues[number] = issue
            for name in labels or []:
                issue["labels"].append(self._label(state, name, "ededed", "human label"))
                self.label_event(state, number, name, labeled_by, added=True)
            return issue

    def use_git_repo(self, repo: str, path: Path) -> None:
        """Clones of `repo` come from the git repository at `path`."""
        with self._lock:
            self.add_repo(repo).data["clone_url"] = str(path)

    def personal_token(self, login: str) -> str:
        """A token acting as `login` itself (a PAT), as a workflow may pass instead of
        GITHUB_TOKEN."""
        token = f"ghp_{login}"
        with self._lock:
            self.tokens[token] = (login, float("inf"))
        return token

    def label_by(self, repo: str, number: int, name: str, login: str) -> None:
        """A person (or another bot) puts a label on, as from GitHub's UI."""
        with self._lock:
            state = self.repos[repo]
            issue = state.issues[number]
            if all(lab["name"].lower() != name.lower() for lab in issue["labels"]):
                issue["labels"].append(self._label(state, name, "ededed", None))
            self.label_event(state, number, name, login, added=True)

    def unlabel_by(self, repo: str, number: int, name: str, login: str) -> None:
        with self._lock:
            state = self.repos[repo]
            issue = state.issues[number]
            issue["labels"] = [
                lab for lab in issue["labels"] if lab["name"].lower() != name.lower()
            ]
            self.label_event(state, number, name, login, added=False)

    def label_event(
        self, state: RepoState, number: int, name: str, login: str, added: bool
    ) -> None:
        label = state.labels.get(name.lower()) or {"name": name}
        event_id = next(self._ids)
        state.events.setdefault(number, []).append(
            {
                "id": event_id,
                "node_id": f"LE_{event_id}",
                "url": f"{state.data['url']}/issues/events/{event_id}",
                "commit_id": None,
                "commit_url": None,
                "performed_via_github_app": None,
                "event": "labeled" if added else "unlabeled",
                "actor": self.user(login),
                "label": {"name": label["name"], "color": label.get("color", "ededed")},
                "created_at": _now(),
            }
        )

    def edit_issue(self, repo: str, number: int, **fields: Any) -> None:
        with self._lock:
            self.repos[repo].issues[number].update(fields)
            if number in self.repos[repo].pulls:
                self.repos[repo].pulls[number].update(fields)

    def add_pull(
        self,
        repo: str,
        number: int,
        title: str = "",
        body: str | None = "",
        author: str = "contributor",
        files: list[Json] | None = None,
        commits: list[str] | None = None,
        head_sha: str = "a" * 40,
        base_sha: str = "b" * 40,
        closing: Sequence[tuple[str, int] | None] | None = None,
    ) -> Json:
        """A PR (and its issue twin); `files` are `{filename, patch, status?}` dicts."""
        with self._lock:
            state = self.add_repo(repo)
            issue = self.add_issue(repo, number, title, body, author)
            pr_url = f"{self.base_url}/repos/{repo}/pulls/{number}"
            html = issue["html_url"]
            issue["pull_request"] = {
                "url": pr_url,
                "html_url": html,
                "diff_url": f"{html}.diff",
                "patch_url": f"{html}.patch",
                "merged_at": None,
            }
            pull = shapes.pull(
                self.base_url, next(self._ids), state.data, number, self.user(author)
            )
            pull.update(title=title, body=body)
            owner = state.data["owner"]["login"]
            pull["head"] = shapes.branch(
                f"{owner}:topic-{number}", f"topic-{number}", head_sha, state.data
            )
            pull["base"] = shapes.branch(
                f"{owner}:{state.data['default_branch']}",
                state.data["default_branch"],
                base_sha,
                state.data,
            )
            state.pulls[number] = pull
            self.set_pull_files(repo, number, files or [])
            state.commits[number] = [
                commit_entry(self.base_url, next(self._ids), m) for m in commits or []
            ]
            state.closing[number] = list(closing or [])
            return pull

    def set_pull_files(self, repo: str, number: int, files: list[Json]) -> None:
        with self._lock:
            self.repos[repo].files[number] = [file_entry(f) for f in files]
            self.repos[repo].diffs[number] = diff_text(files)

    def add_comment(self, repo: str, number: int, body: str, author: str) -> Json:
        with self._lock:
            return self._create_comment(repo, number, body, author)

    def set_permission(self, repo: str, login: str, permission: str) -> None:
        """`admin`, `maintain`, `write`, `triage`, `read` or `none`."""
        with self._lock:
            self.add_repo(repo).permissions[login] = permission

    def put_file(self, repo: str, path: str, text: str, ref: str | None = None) -> None:
        with self._lock:
            state = self.add_repo(repo)
            state.contents[(ref or state.data["default_branch"], path)] = text

    def seed_from_payload(self, payload: Json) -> None:
        """Repository, issue or PR (and comment author) as a webhook payload describes them."""
        repo = payload["repository"]["full_name"]
        self.add_repo(repo, payload["repository"].get("default_branch", "main"))
        issue = payload.get("issue")
        if issue and issue["number"] not in self.repos[repo].issues:
            self.add_issue(
                repo, issue["number"], issue["title"], issue["body"], issue["user"]["login"]
            )
        pull = payload.get("pull_request")
        if pull and pull["number"] not in self.repos[repo].pulls:
            self.add_pull(
                repo,
                pull["number"],
                pull["title"],
                pull["body"],
                pull["user"]["login"],
                head_sha=pull["head"]["sha"],
                base_sha=pull["base"]["sha"],
            )

    def _label(self, state: RepoState, name: str, color: str, description: str | None) -> Json:
        if name.lower() not in state.labels:
            state.labels[name.lower()] = {
                "id": next(self._ids),
                "node_id": f"L_{name}",
                "url": f"{state.data['url']}/labels/{quote(name, safe='')}",
                "name": name,
                "color": color,
                "description": description,
                "default": False,
            }
        return state.labels[name.lower()]

    def _create_comment(self, repo: str, number: int, body: str, author: str) -> Json:
        cid = next(self._ids)
        comment = shapes.comment(self.base_url, cid, repo, number, body, self.user(author))
        comment["created_at"] = comment["updated_at"] = _now()
        self.comments[cid] = comment
        self.comment_repo[cid] = (repo, number)
        self.repos[repo].issues[number]["comments"] += 1
        return comment

"""The REST and GraphQL routes of the fake GitHub: one function per endpoint, matched by regex."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tests.fakes.github_app_routes import APP_ROUTES, check_jwt
from tests.fakes.github_check_routes import commit_check_runs, create_check_run, update_check_run
from tests.fakes.github_failures import paginate, redirect
from tests.fakes.github_graphql import graphql_route
from tests.fakes.github_label_routes import (
    add_labels_route,
    create_label_route,
    issue_events_route,
    issue_labels_route,
    label_route,
    labels_route,
    remove_label_route,
)

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHub, Json, RepoState

Answer = tuple[int, Any] | tuple[int, Any, dict[str, str]]
"""Status, JSON body and, optionally, extra headers (e.g. `Link`)."""
NOT_FOUND: Answer = (404, {"message": "Not Found"})
REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"


class RawText(str):
    """An answer sent as text, not JSON (e.g. a PR as `application/vnd.github.diff`)."""


class Request:
    """What a route sees: the fake, the acting login, the match, the JSON body and headers."""

    def __init__(
        self,
        fake: FakeGitHub,
        actor: str,
        match: re.Match[str],
        query: dict[str, str],
        body: Any,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.fake, self.actor, self.match, self.query, self.body = fake, actor, match, query, body
        self.headers = headers or {}

    def arg(self, name: str) -> str:
        return self.match.group(name)

    @property
    def repo(self) -> RepoState | None:
        return self.fake.repos.get(f"{self.arg('owner')}/{self.arg('name')}")

    @property
    def full_name(self) -> str:
        return f"{self.arg('owner')}/{self.arg('name')}"


def _user(req: Request) -> Answer:
    if req.actor.endswith("[bot]"):  # installation tokens and GITHUB_TOKEN
        return 403, {"message": "Resource not accessible by integration"}
    profile = dict.fromkeys(("bio", "blog", "company", "email", "hireable", "location"))
    profile |= dict.fromkeys(("followers", "following", "public_gists", "public_repos"), 0)
    stamps = {"created_at": "2020-01-01T00:00:00Z", "updated_at": "2020-01-01T00:00:00Z"}
    return 200, req.fake.user(req.actor) | profile | stamps | {
        "name": req.actor,
        "user_view_type": "public",
    }


# What each collaborator permission lets a person do, as `permissions` in a repository.
_ALLOWS = {
    "admin": {"admin", "maintain", "push", "triage", "pull"},
    "maintain": {"maintain", "push", "triage", "pull"},
    "write": {"push", "triage", "pull"},
    "triage": {"triage", "pull"},
    "read": {"pull"},
    "none": set(),
}


def _repo(req: Request) -> Answer:
    if req.repo is None:
        return NOT_FOUND
    if req.actor.endswith("[bot]"):
        return 200, req.repo.data
    level = req.repo.permissions.get(req.actor, "read")
    if level == "none" and req.repo.data.get("private"):
        return NOT_FOUND  # GitHub hides a private repository from people without access
    allowed = _ALLOWS.get(level, set())
    permissions = {p: p in allowed for p in ("admin", "maintain", "push", "triage", "pull")}
    return 200, req.repo.data | {"permissions": permissions}


def _issue(req: Request) -> Answer:
    if req.repo is not None and int(req.arg("n")) in req.repo.deleted:
        return 410, {"message": "This issue was deleted"}
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    return (200, issue) if issue else NOT_FOUND


def _pull(req: Request) -> Answer:
    pull = req.repo.pulls.get(int(req.arg("n"))) if req.repo else None
    if pull is None or req.repo is None:
        return NOT_FOUND
    if "diff" in req.headers.get("accept", ""):
        diff = req.repo.diffs.get(pull["number"], "")
        if diff is None:
            return 406, {"message": "Sorry, the diff exceeded the maximum number of lines"}
        return 200, RawText(diff)
    pull["labels"] = req.repo.issues[pull["number"]]["labels"]
    return 200, pull


def _pull_files(req: Request) -> Answer:
    return (200, req.repo.files.get(int(req.arg("n")), [])) if req.repo else NOT_FOUND


def _pulls(req: Request) -> Answer:
    """The PR listing: `state`, `sort` (created/updated), `direction`, pages with `Link`."""
    if req.repo is None:
        return NOT_FOUND
    req.fake.pull_listings.append(dict(req.query))
    state = req.query.get("state", "open")
    pulls = [p for p in req.repo.pulls.values() if state == "all" or p["state"] == state]
    key = "updated_at" if req.query.get("sort") == "updated" else "created_at"
    pulls.sort(key=lambda p: (p.get(key) or "", p["number"]))
    default = "desc" if req.query.get("sort", "created") == "created" else "asc"
    if req.query.get("direction", default) == "desc":
        pulls.reverse()
    per_page, page = int(req.query.get("per_page", 30)), int(req.query.get("page", 1))
    chunk = pulls[(page - 1) * per_page : page * per_page]
    links = []
    base = f"{req.fake.base_url}/repos/{req.full_name}/pulls?state={state}&per_page={per_page}"
    if page * per_page < len(pulls):
        links.append(f'<{base}&page={page + 1}>; rel="next"')
    last = max(1, -(-len(pulls) // per_page))
    links.append(f'<{base}&page={last}>; rel="last"')
    return 200, chunk, {"Link": ", ".join(links)}


def _pull_commits(req: Request) -> Answer:
    return (200, req.repo.commits.get(int(req.arg("n")), [])) if req.repo else NOT_FOUND


def _comments(req: Request) -> Answer:
    if req.repo is None or int(req.arg("n")) not in req.repo.issues:
        return NOT_FOUND
    return 200, req.fake.issue_comments(req.full_name, int(req.arg("n")))


def _create_comment(req: Request) -> Answer:
    if req.repo is None or int(req.arg("n")) not in req.repo.issues:
        return NOT_FOUND
    return 201, req.fake._create_comment(
        req.full_name, int(req.arg("n")), req.body["body"], req.actor
    )


def _edit_comment(req: Request) -> Answer:
    comment = req.fake.comments.get(int(req.arg("id")))
    if comment is None:
        return NOT_FOUND
    if comment["user"]["login"] != req.actor:
        return 403, {"message": "Resource not accessible by integration"}
    comment.update(body=req.body["body"], updated_at=datetime.now(UTC).isoformat())
    return 200, comment


def _get_comment(req: Request) -> Answer:
    comment = req.fake.comments.get(int(req.arg("id")))
    return (200, comment) if comment else NOT_FOUND


def _reaction(req: Request) -> Answer:
    reaction = {
        "id": len(req.fake.reactions) + 1,
        "node_id": f"REA_{len(req.fake.reactions) + 1}",
        "content": req.body["content"],
        "user": req.fake.user(req.actor),
        "subject": req.match.group(0),
        "created_at": datetime.now(UTC).isoformat(),
    }
    req.fake.reactions.append(reaction)
    return 201, reaction


def _permission(req: Request) -> Answer:
    if req.repo is None:
        return NOT_FOUND
    permission = req.repo.permissions.get(req.arg("user"), "read")
    user = req.fake.user(req.arg("user")) | {"role_name": permission}
    return 200, {"permission": permission, "role_name": permission, "user": user}


def _contents(req: Request) -> Answer:
    from tests.fakes.github_git_shapes import content_entry

    if req.repo is None:
        return NOT_FOUND
    if req.repo.empty_message is not None:
        status, message = req.repo.empty_message
        return status, {"message": message}
    ref = req.query.get("ref") or req.repo.data["default_branch"]
    text = req.repo.contents.get((ref, req.arg("path")))
    if text is None:
        return NOT_FOUND
    return 200, content_entry(req.fake, req.full_name, req.arg("path"), text)


ROUTES: list[tuple[str, re.Pattern[str], Callable[[Request], Answer], bool]] = [
    (m, re.compile(p + "$"), f, w)
    for m, p, f, w in [
        ("GET", r"/user", _user, False),
        ("GET", REPO, _repo, False),
        ("GET", REPO + r"/issues/(?P<n>\d+)", _issue, False),
        ("GET", REPO + r"/issues/(?P<n>\d+)/comments", _comments, False),
        ("POST", REPO + r"/issues/(?P<n>\d+)/comments", _create_comment, True),
        ("GET", REPO + r"/issues/comments/(?P<id>\d+)", _get_comment, False),
        ("PATCH", REPO + r"/issues/comments/(?P<id>\d+)", _edit_comment, True),
        ("POST", REPO + r"/issues/comments/(?P<id>\d+)/reactions", _reaction, True),
        ("POST", REPO + r"/issues/(?P<n>\d+)/reactions", _reaction, True),
        ("GET", REPO + r"/issues/(?P<n>\d+)/labels", issue_labels_route, False),
        ("GET", REPO + r"/issues/(?P<n>\d+)/events", issue_events_route, False),
        ("POST", REPO + r"/issues/(?P<n>\d+)/labels", add_labels_route, True),
        ("DELETE", REPO + r"/issues/(?P<n>\d+)/labels/(?P<label>.+)", remove_label_route, True),
        ("GET", REPO + r"/labels", labels_route, False),
        ("POST", REPO + r"/labels", create_label_route, True),
        ("GET", REPO + r"/labels/(?P<label>.+)", label_route, False),
        ("GET", REPO + r"/pulls", _pulls, False),
        ("GET", REPO + r"/pulls/(?P<n>\d+)", _pull, False),
        ("GET", REPO + r"/pulls/(?P<n>\d+)/files", _pull_files, False),
        ("GET", REPO + r"/pulls/(?P<n>\d+)/commits", _pull_commits, False),
        ("GET", REPO + r"/collaborators/(?P<user>[^/]+)/permission", _permission, False),
        ("GET", REPO + r"/contents/(?P<path>.+)", _contents, False),
        ("POST", REPO + r"/check-runs", create_check_run, True),
        ("PATCH", REPO + r"/check-runs/(?P<id>\d+)", update_check_run, True),
        ("GET", REPO + r"/commits/(?P<ref>[^/]+)/check-runs", commit_check_runs, False),
        ("POST", r"/graphql", graphql_route, False),
    ]
]


def route(
    fake: FakeGitHub,
    method: str,
    path: str,
    query: dict[str, str],
    body: Any,
    headers: Mapping[str, str],
) -> Answer:
    """Answer one request, recording it in `fake.writes` when it changes state."""
    authorization = headers.get("authorization", "")
    for verb, pattern, func in APP_ROUTES:
        match = pattern.match(path)
        if verb == method and match:
            if not check_jwt(fake, authorization):
                return 401, {"message": "A JSON web token could not be decoded"}
            return func(Request(fake, "app", match, query, body))
    actor = fake.actor(authorization)
    if actor is None:
        return 401, {"message": "Bad credentials"}
    moved = redirect(fake, method, path, query)
    if moved is not None:
        return moved
    for verb, pattern, func, writes in ROUTES:
        match = pattern.match(path)
        if verb == method and match:
            with fake._lock:
                answer = func(Request(fake, actor, match, query, body, headers))
                # Every list GitHub pages (the PR listing pages itself, with its own `Link`).
                if method == "GET" and answer[0] == 200 and isinstance(answer[1], list):
                    answer = paginate(fake, path, query, answer[1]) if len(answer) == 2 else answer
                if writes and answer[0] < 300:
                    from tests.fakes.github_server import Write

                    fake.writes.append(Write(method, path, body, actor))
                return answer
    return NOT_FOUND


__all__ = ["Json", "RawText", "route"]

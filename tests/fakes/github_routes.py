"""The REST and GraphQL routes of the fake GitHub: one function per endpoint, matched by regex."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import jwt

from tests.fakes.github_failures import paginate, redirect

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


def _labels(req: Request) -> Answer:
    return (200, list(req.repo.labels.values())) if req.repo else NOT_FOUND


def _label(req: Request) -> Answer:
    label = req.repo.labels.get(req.arg("label").lower()) if req.repo else None
    return (200, label) if label else NOT_FOUND


def _create_label(req: Request) -> Answer:
    if req.repo is None:
        return NOT_FOUND
    name = req.body["name"]
    if name.lower() in req.repo.labels:
        return 422, {"message": "Validation Failed", "errors": [{"code": "already_exists"}]}
    color = req.body.get("color", "ededed")
    return 201, req.fake._label(req.repo, name, color, req.body.get("description"))


def _issue_labels(req: Request) -> Answer:
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    return (200, issue["labels"]) if issue else NOT_FOUND


def _add_labels(req: Request) -> Answer:
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    if issue is None or req.repo is None:
        return NOT_FOUND
    names = req.body["labels"] if isinstance(req.body, dict) else req.body
    present = {lab["name"].lower() for lab in issue["labels"]}
    for name in names:
        if name.lower() not in present:
            # GitHub creates unknown labels on the fly with a grey colour and no description.
            issue["labels"].append(req.fake._label(req.repo, name, "ededed", None))
            req.fake.label_event(req.repo, int(req.arg("n")), name, req.actor, added=True)
            present.add(name.lower())
    return 200, issue["labels"]


def _remove_label(req: Request) -> Answer:
    issue = req.repo.issues.get(int(req.arg("n"))) if req.repo else None
    if issue is None or req.repo is None:
        return NOT_FOUND
    name = req.arg("label").lower()
    gone = [lab for lab in issue["labels"] if lab["name"].lower() == name]
    if not gone:
        return 404, {"message": "Label does not exist"}
    issue["labels"] = [lab for lab in issue["labels"] if lab["name"].lower() != name]
    req.fake.label_event(req.repo, int(req.arg("n")), gone[0]["name"], req.actor, added=False)
    return 200, issue["labels"]


def _issue_events(req: Request) -> Answer:
    if req.repo is None or int(req.arg("n")) not in req.repo.issues:
        return NOT_FOUND
    return 200, req.repo.events.get(int(req.arg("n")), [])


def _permission(req: Request) -> Answer:
    if req.repo is None:
        return NOT_FOUND
    permission = req.repo.permissions.get(req.arg("user"), "read")
    user = req.fake.user(req.arg("user")) | {"role_name": permission}
    return 200, {"permission": permission, "role_name": permission, "user": user}


def _contents(req: Request) -> Answer:
    from tests.fakes.github_server import content_entry

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


def _graphql(req: Request) -> Answer:
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


def _app(req: Request) -> Answer:
    fake = req.fake
    return 200, {
        "id": fake.app_id,
        "slug": fake.app_slug,
        "name": fake.app_slug,
        "node_id": "A_1",
        "owner": fake.user("app-owner"),
        "html_url": "",
        "external_url": "",
        "description": "",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "permissions": {},
        "events": [],
    }


def _access_token(req: Request) -> Answer:
    fake = req.fake
    fake.token_requests += 1
    token = f"ghs_inst_{req.arg('inst')}_{fake.token_requests}"
    expiry = time.time() + fake.token_ttl_s
    fake.tokens[token] = (f"{fake.app_slug}[bot]", expiry)
    expires_at = datetime.fromtimestamp(expiry, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return 201, {"token": token, "expires_at": expires_at, "permissions": {}}


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
        ("GET", REPO + r"/issues/(?P<n>\d+)/labels", _issue_labels, False),
        ("GET", REPO + r"/issues/(?P<n>\d+)/events", _issue_events, False),
        ("POST", REPO + r"/issues/(?P<n>\d+)/labels", _add_labels, True),
        ("DELETE", REPO + r"/issues/(?P<n>\d+)/labels/(?P<label>.+)", _remove_label, True),
        ("GET", REPO + r"/labels", _labels, False),
        ("POST", REPO + r"/labels", _create_label, True),
        ("GET", REPO + r"/labels/(?P<label>.+)", _label, False),
        ("GET", REPO + r"/pulls", _pulls, False),
        ("GET", REPO + r"/pulls/(?P<n>\d+)", _pull, False),
        ("GET", REPO + r"/pulls/(?P<n>\d+)/files", _pull_files, False),
        ("GET", REPO + r"/pulls/(?P<n>\d+)/commits", _pull_commits, False),
        ("GET", REPO + r"/collaborators/(?P<user>[^/]+)/permission", _permission, False),
        ("GET", REPO + r"/contents/(?P<path>.+)", _contents, False),
        ("POST", r"/graphql", _graphql, False),
    ]
]
APP_ROUTES: list[tuple[str, re.Pattern[str], Callable[[Request], Answer]]] = [
    ("GET", re.compile(r"/app$"), _app),
    ("POST", re.compile(r"/app/installations/(?P<inst>\d+)/access_tokens$"), _access_token),
]


def _check_jwt(fake: FakeGitHub, authorization: str) -> bool:
    if not authorization.startswith("Bearer "):
        return False
    if fake.jwt_public_key is None:
        return True
    try:
        claims = jwt.decode(authorization[7:], fake.jwt_public_key, algorithms=["RS256"])
    except jwt.PyJWTError:
        return False
    return str(claims.get("iss")) == str(fake.app_id)


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
            if not _check_jwt(fake, authorization):
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

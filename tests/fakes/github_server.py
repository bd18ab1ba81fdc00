"""A fake GitHub (REST + GraphQL) on 127.0.0.1 that PyGithub reaches over real HTTP.

State lives in memory (repositories, issues, pull requests, files, commits, comments, labels,
collaborator permissions, file contents, reactions, installation tokens). Seed it with the
helpers (`add_repo`, `add_issue`, `add_pull`, ...) or straight from a webhook payload
(`seed_from_payload`). Every write is recorded in `writes`; `fail_next` injects 5xx errors or
secondary rate limits with `Retry-After`.

    with FakeGitHub() as gh:
        gh.seed_from_payload(payload)
        Github(auth=Auth.Token(gh.bot_token), base_url=gh.base_url)
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from tests.fakes import github_shapes as shapes
from tests.fakes.github_failures import FailureShapes
from tests.fakes.github_oauth import WebFlow

DOCS = "https://docs.github.com/rest"
Json = dict[str, Any]


class ContractViolation(AssertionError):
    """The code sent, or the fake answered, something GitHub's description does not allow."""


@dataclass
class Fault:
    """An injected failure for the next matching requests."""

    status: int
    times: int
    retry_after: int | None = None
    message: str = "Server Error"
    method: str | None = None
    path_contains: str | None = None
    after: bool = False
    """Apply the request, then fail: a reply lost on the way back."""
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    """The answer's body instead of `{"message": message}` (e.g. GraphQL `errors`)."""
    before: Callable[[], None] | None = None
    """Instead of failing: do this (revoke tokens, delete a comment), then answer as usual."""


@dataclass
class Write:
    """One state-changing request, as the fake received it."""

    method: str
    path: str
    body: Any
    actor: str


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


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class FakeGitHub(FailureShapes):
    """The server; use as a context manager."""

    def __init__(
        self,
        bot_login: str = "spice-triage[bot]",
        app_slug: str = "spice-triage",
        check_contract: bool = True,
    ):
        self.bot_login = bot_login
        self.check_contract = check_contract
        """Every exchange is checked against GitHub's description; drifts fail at exit."""
        self.violations: list[str] = []
        self.app_slug = app_slug
        self.app_id = 4242
        self.bot_token = "ghs_bot_token"
        self.token_ttl_s = 3600
        self.jwt_public_key: str | None = None
        """When set, installation-token requests must carry a JWT signed by the App's key."""
        self.repos: dict[str, RepoState] = {}
        self.renamed: dict[str, str] = {}
        self.comments: dict[int, Json] = {}
        self.comment_repo: dict[int, tuple[str, int]] = {}
        self.reactions: list[Json] = []
        self.tokens: dict[str, tuple[str, float]] = {self.bot_token: (bot_login, float("inf"))}
        self.writes: list[Write] = []
        self.requests: list[tuple[str, str]] = []
        self.token_requests = 0
        self.faults: list[Fault] = []
        self.latency_s = 0.0
        self.pull_listings: list[dict[str, str]] = []
        """Query of every `GET /repos/{repo}/pulls` (harvest tests check pagination)."""
        """Fixed delay before every answer (benchmarks: a realistic API round trip)."""
        self.web_flow = WebFlow()
        """Sign-in with GitHub (OAuth web flow): apps, the browser's user, codes."""
        self._ids = itertools.count(1000)
        self._lock = threading.RLock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # ---- lifecycle -------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self.check_contract and self.violations and exc[0] is None:
            raise ContractViolation(
                "the fake GitHub saw exchanges GitHub's description rejects:\n"
                + "\n".join(dict.fromkeys(self.violations))
            )

    def observe(
        self, method: str, path: str, query: dict[str, str], body: Any, answer: tuple[int, Any]
    ) -> None:
        """Check one exchange against GitHub's published contract (see tests/contract/)."""
        if not self.check_contract:
            return
        from tests.contract.graphql_check import graphql_problems
        from tests.contract.rest import rest_contract

        status, payload = answer
        if path == "/graphql" and method == "POST":
            found = graphql_problems(
                str((body or {}).get("query", "")), (body or {}).get("variables") or {}, payload
            )
        else:
            contract = rest_contract()
            found = contract.check_request(method, path, query, body)
            found += contract.check_response(method, path, status, payload)
        with self._lock:
            self.violations += found

    # ---- seeding ---------------------------------------------------------------------------
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
        closing: list[tuple[str, int] | None] | None = None,
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
            state.commits[number] = [self._commit(m) for m in commits or []]
            state.closing[number] = list(closing or [])
            return pull

    def set_pull_files(self, repo: str, number: int, files: list[Json]) -> None:
        with self._lock:
            self.repos[repo].files[number] = [self._file(f) for f in files]
            self.repos[repo].diffs[number] = self._diff_text(files)

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

    def fail_next(
        self,
        status: int = 502,
        times: int = 1,
        retry_after: int | None = None,
        message: str = "Server Error",
        method: str | None = None,
        path_contains: str | None = None,
        after: bool = False,
        headers: dict[str, str] | None = None,
        body: Any = None,
        before: Callable[[], None] | None = None,
    ) -> None:
        """The next `times` matching requests fail (`403` + message = secondary rate limit)."""
        with self._lock:
            fault = Fault(
                status, times, retry_after, message, method, path_contains, after, headers or {}
            )
            fault.body, fault.before = body, before
            self.faults.append(fault)

    def fail_secondary_rate_limit(self, times: int = 1, retry_after: int = 1) -> None:
        self.fail_next(
            403, times, retry_after, "You have exceeded a secondary rate limit. Please retry later."
        )

    # ---- inspection ------------------------------------------------------------------------
    def issue_comments(self, repo: str, number: int) -> list[Json]:
        return [self.comments[i] for i, loc in self.comment_repo.items() if loc == (repo, number)]

    def comment_body(self, comment_id: int | None) -> str:
        assert comment_id is not None, "no comment id"
        return str(self.comments[comment_id]["body"])

    def label_names(self, repo: str, number: int) -> list[str]:
        return [lab["name"] for lab in self.repos[repo].issues[number]["labels"]]

    def writes_to(self, method: str, path_part: str = "") -> list[Write]:
        return [w for w in self.writes if w.method == method and path_part in w.path]

    # ---- internals -------------------------------------------------------------------------
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

    def _file(self, spec: Json) -> Json:
        """The files API's entry; `too_large: True` leaves `patch` out, as GitHub does for a
        file whose diff is too big to show (the PR's .diff still has it)."""
        patch = spec.get("patch", "")
        adds = sum(1 for line in patch.splitlines() if line.startswith("+"))
        dels = sum(1 for line in patch.splitlines() if line.startswith("-"))
        entry = {
            "sha": "c" * 40,
            "filename": spec["filename"],
            "status": spec.get("status", "modified"),
            "additions": adds,
            "deletions": dels,
            "changes": adds + dels,
            "patch": patch,
            "blob_url": "",
            "raw_url": "",
            "contents_url": "",
        }
        if spec.get("too_large"):
            del entry["patch"]
        return entry

    @staticmethod
    def _diff_text(specs: list[Json]) -> str:
        """The PR as `application/vnd.github.diff`, in git's own format.

        A spec may carry `git_diff`, the exact text `git diff` printed for the file (tests make
        it with real git); otherwise the header is written as git writes it for the status:
        `new file mode`, `deleted file mode`, `rename from/to`, and binary files as
        `Binary files ... differ`, as GitHub's .diff shows them.
        """
        return "".join(spec.get("git_diff") or _git_file_diff(spec) for spec in specs)

    def _commit(self, message: str) -> Json:
        sha = f"{next(self._ids):040x}"
        person = {"name": "dev", "email": "dev@example.com", "date": _now()}
        tree = {"sha": "e" * 40, "url": f"{self.base_url}/git/trees/{'e' * 40}"}
        return {
            "sha": sha,
            "node_id": f"C_{sha[-8:]}",
            "url": f"{self.base_url}/commits/{sha}",
            "html_url": "",
            "comments_url": f"{self.base_url}/commits/{sha}/comments",
            "commit": {
                "message": message,
                "author": person,
                "committer": person,
                "comment_count": 0,
                "tree": tree,
                "url": f"{self.base_url}/git/commits/{sha}",
            },
            "author": None,
            "committer": None,
            "parents": [],
        }

    def _create_comment(self, repo: str, number: int, body: str, author: str) -> Json:
        cid = next(self._ids)
        comment = shapes.comment(self.base_url, cid, repo, number, body, self.user(author))
        comment["created_at"] = comment["updated_at"] = _now()
        self.comments[cid] = comment
        self.comment_repo[cid] = (repo, number)
        self.repos[repo].issues[number]["comments"] += 1
        return comment

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.method not in (None, method):
                    continue
                if fault.path_contains and fault.path_contains not in path:
                    continue
                fault.times -= 1
                if fault.times <= 0:
                    self.faults.remove(fault)
                return fault
        return None

    def revoke_installation_tokens(self) -> None:
        with self._lock:
            for token in [t for t in self.tokens if t.startswith("ghs_inst_")]:
                del self.tokens[token]

    def delete_comment(self, comment_id: int) -> None:
        with self._lock:
            repo, number = self.comment_repo.pop(comment_id)
            del self.comments[comment_id]
            self.repos[repo].issues[number]["comments"] -= 1

    def actor(self, authorization: str) -> str | None:
        token = authorization.split(" ", 1)[-1].strip()
        login, expiry = self.tokens.get(token, ("", 0.0))
        return login if login and expiry > time.time() else None


def _handler_class(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    from tests.fakes.github_failures import by_name
    from tests.fakes.github_oauth import web_flow_answer
    from tests.fakes.github_routes import RawText, route

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle on, keep-alive clients wait 40 ms.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            fake.requests.append((self.command, unquote(parts.path)))
            # GitHub serves a repository by id too (where a rename redirects): same operations.
            path = by_name(fake, unquote(parts.path))
            fault = fake.take_fault(self.command, path)
            if fault is not None and fault.before is not None:
                fault.before()
                fault = None
            body = json.loads(raw) if raw else None
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            signing_in = web_flow_answer(fake, self.command, path, query, body)
            if signing_in is not None:
                self._send(*signing_in)
                return
            if fault is None or fault.after:
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, payload, *extra = route(fake, self.command, path, query, body, headers)
            if fault is not None:
                retry = {"Retry-After": str(fault.retry_after)} if fault.retry_after else {}
                error = fault.body or {"message": fault.message, "documentation_url": DOCS}
                fake.observe(self.command, path, query, body, (fault.status, error))
                self._send(fault.status, error, retry | fault.headers)
                return
            if status >= 400 and isinstance(payload, dict):
                payload = {**payload, "documentation_url": payload.get("documentation_url", DOCS)}
            fake.observe(self.command, path, query, body, (status, payload))
            if fake.latency_s:
                time.sleep(fake.latency_s)
            self._send(status, payload, *extra)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            raw = isinstance(body, RawText)
            data = b"" if status == 204 else body.encode() if raw else json.dumps(body).encode()
            self.send_response(status)
            kind = "text/plain" if raw else "application/json"
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


def content_entry(fake: FakeGitHub, repo: str, path: str, text: str) -> Json:
    """The contents API's answer for one file."""
    encoded = base64.b64encode(text.encode()).decode()
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(text.encode()),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": encoded,
        "sha": "d" * 40,
        "url": f"{fake.base_url}/repos/{repo}/contents/{path}",
        "git_url": None,
        "html_url": None,
        "download_url": None,
        "_links": {
            "self": f"{fake.base_url}/repos/{repo}/contents/{path}",
            "git": None,
            "html": None,
        },
    }


def _git_file_diff(spec: Json) -> str:
    name, status = spec["filename"], spec.get("status", "modified")
    old = spec.get("previous_filename") or name
    head = f"diff --git a/{old} b/{name}\n"
    if status == "added":
        head += "new file mode 100644\n"
    elif status == "removed":
        head += "deleted file mode 100644\n"
    elif old != name:
        head += f"similarity index 90%\nrename from {old}\nrename to {name}\n"
    a = "/dev/null" if status == "added" else f"a/{old}"
    b = "/dev/null" if status == "removed" else f"b/{name}"
    if spec.get("binary"):
        return head + f"Binary files {a} and {b} differ\n"
    patch = spec.get("patch", "")
    if not patch:
        return head
    return head + f"--- {a}\n+++ {b}\n" + (patch if patch.endswith("\n") else patch + "\n")

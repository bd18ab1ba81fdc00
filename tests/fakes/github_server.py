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

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.fakes.github_failures import FailureShapes
from tests.fakes.github_oauth import WebFlow
from tests.fakes.github_seeding import RepoState, Seeding

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


class FakeGitHub(Seeding, FailureShapes):
    """The server; use as a context manager."""

    def __init__(
        self,
        bot_login: str = "spice-triage[bot]",
        app_slug: str = "spice-triage",
        check_contract: bool = True,
        port: int = 0,
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
        self.transferred: dict[tuple[str, int], tuple[str, int]] = {}
        """(repo, number) of a transferred issue -> where it is now."""
        self.installations_refused: dict[int, tuple[int, str]] = {}
        """Installation id -> the status and message its token requests get (uninstalled,
        suspended)."""
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
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_class(self))
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
    from tests.contract.rest import version_problem
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
            unversioned = version_problem(self.command, parts.path, self.headers)
            if fake.check_contract and unversioned:
                fake.violations.append(unversioned)  # one list append: atomic
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


if __name__ == "__main__":  # the offline tours' GitHub: sample data, settings printed
    from tests.fakes.sample_github import main

    main()

"""Pytest fixtures and helpers around the fake GitHub; import the fixtures into a test module.

from tests.fakes.github_fixtures import fake_github, handler_deps  # noqa: F401
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.github.retries import RetryPolicy
from app.github.sessions import session_factory
from app.handlers.deps import HandlerDeps
from app.settings import Settings
from spice_engine.llm.litellm_chat import LiteLLMChat
from tests.contract.webhooks import assert_webhook_valid
from tests.fakes import github_shapes as shapes
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI, Reply, request_schema

REPO = "octo-org/widgets"
FAST_RETRIES = RetryPolicy(
    attempts=3, backoff_s=0.05, max_wait_s=5, seconds_between_requests=0, seconds_between_writes=0
)


@pytest.fixture(name="fake_github")
def fake_github_fixture() -> Iterator[FakeGitHub]:
    """A fake GitHub with one repository, `REPO` (default branch `main`)."""
    with FakeGitHub() as gh:
        gh.add_repo(REPO, "main")
        yield gh


def settings_for(gh: FakeGitHub, model_server: FakeOpenAI, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "model": "openai/fake",
        "api_base": model_server.api_base,
        "api_key": "sk-test-model-key-123",
        "output_mode": "json_object",
        "votes": 3,
        "max_attempts": 1,
        "github_api_url": gh.base_url,
        "github_token": gh.bot_token,
        "bot_login": gh.bot_login,
    }
    values.update(overrides)
    return Settings(**values)


def make_deps(gh: FakeGitHub, model_server: FakeOpenAI, **overrides: Any) -> HandlerDeps:
    """Production wiring (PyGithub over HTTP, litellm over HTTP) pointed at the two fakes."""
    dry_run = bool(overrides.pop("dry_run", False))
    settings = settings_for(gh, model_server, **overrides)
    return HandlerDeps(
        settings=settings,
        github=session_factory(settings, FAST_RETRIES),
        chat=lambda model: LiteLLMChat(settings.model_config_for(model)),
        dry_run=dry_run,
        retry_policy=FAST_RETRIES,
    )


@pytest.fixture(name="handler_deps")
def handler_deps_fixture(fake_github: FakeGitHub, fake_openai: FakeOpenAI) -> HandlerDeps:
    return make_deps(fake_github, fake_openai)


def payload(
    gh: FakeGitHub, event: str, action: str, repo: str, number: int, **extra: Any
) -> dict[str, Any]:
    """A webhook payload describing the fake's state, checked against GitHub's webhook schema
    (so a test cannot send what GitHub never would)."""
    data: dict[str, Any] = {
        "action": action,
        "repository": copy.deepcopy(gh.repos[repo].data),
        "installation": {"id": 1, "node_id": "x"},
    }
    issue = gh.repos[repo].issues[number]
    if event == "pull_request":
        data["number"] = number
        data["pull_request"] = copy.deepcopy(gh.repos[repo].pulls[number])
    else:
        data["issue"] = copy.deepcopy(issue)
    if event == "issue_comment":
        author = gh.user(extra["author"])
        cid = extra.get("comment_id", 1)
        data["comment"] = shapes.comment(gh.base_url, cid, repo, number, extra["body"], author)
    if action == "edited":
        data["changes"] = extra.get("changes", {})
    if action == "synchronize":
        data["before"], data["after"] = "f" * 40, data["pull_request"]["head"]["sha"]
    if action in ("labeled", "unlabeled"):
        data["label"] = copy.deepcopy(gh.repos[repo].labels[extra["label"].lower()])
    data["sender"] = gh.user(extra.get("author") or (issue["user"] or {}).get("login") or "ghost")
    return assert_webhook_valid(event, data)


_ISSUE = re.compile(r"<issue>(.*)</issue>", re.DOTALL)


def user_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in request["messages"] if m["role"] == "user")


def scripted(
    scores: list[int] | Callable[[dict[str, Any]], list[int]],
    echo: bool = False,
    candidate: str = "none",
    inject: str = "",
    yes: frozenset[str] = frozenset(),
) -> Callable[[dict[str, Any]], Reply]:
    """A responder answering every pipeline's schema with the given vote scores.

    `echo` copies the issue text the model saw into the rationale, the questions and the
    counter-example: the worst a prompt-injected model could do; `inject` adds text of its own.
    `yes` names the yes/no fields answered true (the others are false).
    """

    def respond(request: dict[str, Any]) -> Reply:
        schema = request_schema(request) or {}
        props = schema.get("properties", {})
        found = _ISSUE.search(user_text(request))
        text = found.group(1) if echo and found else "The text is clear enough."
        text += inject
        wanted = scores(request) if callable(scores) else scores
        n = int(request.get("n") or 1)
        seed = int(request.get("seed") or 0)
        texts = []
        for i in range(n):
            score = wanted[(seed + i) % len(wanted)]
            answer: dict[str, Any] = {"rationale": f"Vote {seed + i + 1}: {text}", "score": score}
            if "candidate_solution" in props:
                answer |= {
                    "candidate_solution": candidate,
                    "candidate_misleading": False,
                    "questions": [f"Question about: {text}"] if score >= 2 else [],
                }
            if "counter_example" in props:
                answer["counter_example"] = f"Counter: {text}" if score > 0 else None
            # Yes/no dimensions (spice_engine.dimensions.yes_no) answer "yes" only when asked to.
            yes_no = {k: k in yes for k, v in props.items() if v.get("type") == "boolean"}
            answer |= {k: v for k, v in yes_no.items() if k not in answer}
            if "score" not in props:
                answer = {"rationale": answer["rationale"]} | yes_no
            texts.append(json.dumps(answer))
        return Reply(texts=texts)

    return respond

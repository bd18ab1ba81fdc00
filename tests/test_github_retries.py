"""GitHub failures: retried with backoff, `Retry-After` honoured, idempotent comment, loud failure."""

from __future__ import annotations

import time

from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.handlers.outcome import HandlerOutcome
from tests.fakes.github_fixtures import (
    REPO,
    fake_github_fixture,  # noqa: F401
    handler_deps_fixture,  # noqa: F401
    payload,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI


def _opened(gh: FakeGitHub, deps: HandlerDeps) -> HandlerOutcome:
    gh.add_issue(REPO, 3, "Crash", "parse('') raises KeyError.")
    return handle_delivery("issues", payload(gh, "issues", "opened", REPO, 3), "r1", deps)


def _gets(gh: FakeGitHub, path: str) -> int:
    return sum(1 for method, p in gh.requests if method == "GET" and p == path)


def test_5xx_then_success_is_retried(fake_github: FakeGitHub, handler_deps: HandlerDeps) -> None:
    fake_github.fail_next(502, times=2, method="GET", path_contains="/issues/3")
    out = _opened(fake_github, handler_deps)
    assert out.ok and out.done.comment.action == "created"
    assert _gets(fake_github, f"/repos/{REPO}/issues/3") >= 3


def test_secondary_rate_limit_waits_for_retry_after(
    fake_github: FakeGitHub, handler_deps: HandlerDeps
) -> None:
    fake_github.fail_secondary_rate_limit(times=1, retry_after=1)
    started = time.monotonic()
    out = _opened(fake_github, handler_deps)
    assert out.ok
    assert time.monotonic() - started >= 1.0


def test_a_wait_longer_than_allowed_fails_loudly_without_sleeping(
    fake_github: FakeGitHub, handler_deps: HandlerDeps, fake_openai: FakeOpenAI
) -> None:
    fake_github.fail_secondary_rate_limit(times=1, retry_after=3600)
    started = time.monotonic()
    out = _opened(fake_github, handler_deps)
    assert not out.ok and out.failure.retryable and "3600" in out.failure.message
    assert time.monotonic() - started < 5 and fake_openai.requests == []


def test_persistent_5xx_is_an_error_after_the_allowed_attempts(
    fake_github: FakeGitHub, handler_deps: HandlerDeps
) -> None:
    fake_github.fail_next(503, times=100, path_contains="/contents/")
    out = _opened(fake_github, handler_deps)
    assert (
        not out.ok
        and out.failure.retryable
        and out.failure.message.startswith("GitHub API error 503")
    )
    tries = sum(1 for _, p in fake_github.requests if "/contents/" in p)
    assert tries == handler_deps.retry_policy.attempts
    assert fake_github.writes == []


def test_a_lost_reply_to_the_comment_post_never_duplicates_it(
    fake_github: FakeGitHub, handler_deps: HandlerDeps
) -> None:
    fake_github.fail_next(502, times=1, method="POST", path_contains="/comments", after=True)
    out = _opened(fake_github, handler_deps)
    assert out.ok and out.done.comment.action == "created"
    assert len(fake_github.issue_comments(REPO, 3)) == 1
    assert len(fake_github.writes_to("POST", "/comments")) == 1


def test_a_rate_limit_without_retry_after_means_a_minute() -> None:
    from github import RateLimitExceededException

    from app.github.retries import server_wait_s

    limited = RateLimitExceededException(403, {"message": "secondary"}, {})
    reset = RateLimitExceededException(
        403, {}, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 30)}
    )
    assert server_wait_s(limited) == 60.0
    assert 25 <= (server_wait_s(reset) or 0) <= 30

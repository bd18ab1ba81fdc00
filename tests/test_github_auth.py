"""App auth against the fake: a signed JWT buys installation tokens, cached until near expiry."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from app.github.auth import GitHubAuthError
from app.github.sessions import session_factory
from app.handlers.deps import HandlerDeps
from app.handlers.dispatch import handle_delivery
from app.settings import Settings
from tests.fakes.github_fixtures import (
    FAST_RETRIES,
    REPO,
    fake_github_fixture,  # noqa: F401
    payload,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI


def _pem_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@pytest.fixture(scope="module")
def keys() -> tuple[str, str]:
    return _pem_pair()


@pytest.fixture
def app_github(fake_github: FakeGitHub, keys: tuple[str, str]) -> Iterator[FakeGitHub]:
    fake_github.jwt_public_key = keys[1]
    fake_github.add_issue(REPO, 3, "Crash", "it breaks")
    yield fake_github


def _settings(gh: FakeGitHub, private_key: str) -> Settings:
    return Settings(
        github_api_url=gh.base_url, github_app_id=gh.app_id, github_private_key=private_key
    )


def test_installation_token_is_minted_once_and_reused(
    app_github: FakeGitHub, keys: tuple[str, str]
) -> None:
    sessions = session_factory(_settings(app_github, keys[0]), FAST_RETRIES)
    first = sessions(1)
    assert first.bot_login == "spice-triage[bot]"
    assert first.repo(REPO).get_issue(3).title == "Crash"
    sessions(1).repo(REPO).create_comment(3, "hello")
    assert app_github.token_requests == 1
    assert app_github.comments[max(app_github.comments)]["user"]["login"] == "spice-triage[bot]"


def test_a_token_near_expiry_is_renewed(app_github: FakeGitHub, keys: tuple[str, str]) -> None:
    app_github.token_ttl_s = 120  # inside the renewal margin: never served from the cache
    sessions = session_factory(_settings(app_github, keys[0]), FAST_RETRIES)
    sessions(1).repo(REPO).get_issue(3)
    sessions(1).repo(REPO).get_issue(3)
    assert app_github.token_requests == 2


def test_a_wrong_key_or_missing_installation_fails_loudly(
    app_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    settings = _settings(app_github, _pem_pair()[0])
    deps = HandlerDeps(
        settings=settings,
        github=session_factory(settings, FAST_RETRIES),
        chat=lambda model: pytest.fail("no model call expected"),
    )
    event = payload(app_github, "issues", "opened", REPO, 3)
    out = handle_delivery("issues", event, "a1", deps)
    assert not out.ok and out.failure.message.startswith("GitHub API error 401")
    event.pop("installation")
    out = handle_delivery("issues", event, "a2", deps)
    assert not out.ok and "installation" in out.failure.message
    assert app_github.writes == []


def test_no_credentials_at_all_is_refused() -> None:
    with pytest.raises(GitHubAuthError):
        session_factory(Settings(github_token=None, github_app_id=None))

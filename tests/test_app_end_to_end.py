"""The whole App: a signed webhook over HTTP -> stored job -> queue consumer -> fake GitHub."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from app.store.assessments import assessments_for
from app.web.app import create_app
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.service.deliveries import SECRET, signed_headers
from tests.service.github_worker_handler import make_handler
from tests.service.stack import Stack, build_stack, run_ready_tasks


def settings(tmp_path: Path, gh: FakeGitHub, model: FakeOpenAI) -> Settings:
    return Settings(
        data_dir=tmp_path,
        webhook_secret=SECRET.decode(),
        model="openai/fake",
        api_base=model.api_base,
        api_key="sk-test-model-key-123",
        output_mode="json_object",
        max_attempts=1,
        github_api_url=gh.base_url,
        github_token=gh.bot_token,
        bot_login=gh.bot_login,
    )


@pytest.fixture
def app_stack(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> Iterator[tuple[TestClient, Stack]]:
    config = settings(tmp_path, fake_github, fake_openai)
    with TestClient(create_app(config)) as client:
        yield client, build_stack(config, runner_handler=make_handler(config))


def post(client: TestClient, event: str, body: dict[str, Any], delivery: str) -> int:
    raw = json.dumps(body).encode()
    return client.post(
        "/webhook", content=raw, headers=signed_headers(raw, event, delivery)
    ).status_code


def test_signed_issue_opened_ends_as_labels_and_one_comment(
    app_stack: tuple[TestClient, Stack], fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    client, stack = app_stack
    fake_github.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    fake_openai.responder = scripted([2, 3, 3])
    opened = payload(fake_github, "issues", "opened", REPO, 7)

    assert post(client, "issues", opened, "e2e-1") == 202
    assert post(client, "issues", opened, "e2e-1") == 200  # a redelivery: no second job
    assert fake_github.issue_comments(REPO, 7) == []  # nothing happens on the request path
    assert run_ready_tasks(stack.queue) == 1

    assert fake_github.label_names(REPO, 7) == ["clarity: underspecified"]
    [comment] = fake_github.issue_comments(REPO, 7)
    assert comment["user"]["login"] == fake_github.bot_login
    assert "2 · 3 · 3" in comment["body"]
    assert stack.job(f"{REPO}#7").state == "done"
    votes = len(fake_openai.requests)

    edited = payload(fake_github, "issues", "edited", REPO, 7)
    assert post(client, "issues", edited, "e2e-2") == 202
    run_ready_tasks(stack.queue)
    assert len(fake_openai.requests) == votes  # unchanged text is never re-voted
    assert len(fake_github.issue_comments(REPO, 7)) == 1


def test_with_no_comment_unchanged_input_is_still_not_revoted_and_results_keep_labels(
    app_stack: tuple[TestClient, Stack], fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> None:
    # Comment mode `never`: no sticky comment holds the state; the App's store does.
    client, stack = app_stack
    fake_github.put_file(REPO, ".github/spice.yml", "comment_mode: never\n")
    fake_github.add_issue(REPO, 8, "Crash on empty input", "`parse('')` raises KeyError.")
    fake_openai.responder = scripted([3])
    assert post(client, "issues", payload(fake_github, "issues", "opened", REPO, 8), "n-1") == 202
    run_ready_tasks(stack.queue)
    votes = len(fake_openai.requests)
    assert votes > 0 and fake_github.issue_comments(REPO, 8) == []
    assert fake_github.label_names(REPO, 8) == ["clarity: underspecified"]

    for n, action in enumerate(["edited", "reopened"], start=2):
        body = payload(fake_github, "issues", action, REPO, 8)
        assert post(client, "issues", body, f"n-{n}") == 202
        run_ready_tasks(stack.queue)
    assert len(fake_openai.requests) == votes

    # A real edit is voted; both results keep the labels they call for, added or not.
    fake_github.edit_issue(REPO, 8, body="`parse('')` raises KeyError; it should raise ValueError.")
    assert post(client, "issues", payload(fake_github, "issues", "edited", REPO, 8), "n-4") == 202
    run_ready_tasks(stack.queue)
    assert len(fake_openai.requests) > votes
    with stack.sessions() as session:
        rows = assessments_for(session, REPO, 8)
    assert [row.labels for row in rows] == [["clarity: underspecified"]] * 2

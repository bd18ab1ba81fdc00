"""A maintainer correcting our label is a human label we keep and measure ourselves by."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli.main import cli
from app.settings import Settings
from app.store.models import HumanLabel
from app.web.app import create_app
from tests.fakes.github_fixtures import (  # noqa: F401
    REPO,
    fake_github_fixture,
    payload,
    scripted,
    settings_for,
)
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.pipeline_store import app_pipeline
from tests.service.deliveries import SECRET, signed_headers
from tests.service.github_worker_handler import make_handler
from tests.service.stack import Stack, build_stack, run_ready_tasks


@pytest.fixture
def app_stack(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> Iterator[tuple[TestClient, Stack, Settings]]:
    config = settings_for(
        fake_github, fake_openai, data_dir=tmp_path, webhook_secret=SECRET.decode()
    )
    with TestClient(create_app(config)) as client:
        yield client, build_stack(config, runner_handler=make_handler(config)), config


def post(client: TestClient, event: str, body: dict[str, Any], delivery: str) -> int:
    raw = json.dumps(body).encode()
    return client.post(
        "/webhook", content=raw, headers=signed_headers(raw, event, delivery)
    ).status_code


def human_rows(stack: Stack) -> list[HumanLabel]:
    with stack.sessions() as session:
        return list(session.scalars(select(HumanLabel)))


def test_a_maintainer_replacing_our_label_is_one_correction_and_eval_reports_it(
    app_stack: tuple[TestClient, Stack, Settings],
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
) -> None:
    client, stack, config = app_stack
    fake_github.add_issue(REPO, 7, "Crash on empty input", "`parse('')` raises KeyError.")
    fake_openai.responder = scripted([3])
    assert post(client, "issues", payload(fake_github, "issues", "opened", REPO, 7), "o-1") == 202
    run_ready_tasks(stack.queue)
    assert fake_github.label_names(REPO, 7) == ["clarity: underspecified"]
    # Our own label write comes back as an event: not a correction, no API call.
    ours = payload(fake_github, "issues", "labeled", REPO, 7, label="clarity: underspecified")
    ours["sender"] = fake_github.user(fake_github.bot_login) | {"type": "Bot"}
    assert post(client, "issues", ours, "b-1") == 202
    run_ready_tasks(stack.queue)
    assert human_rows(stack) == []

    fake_github.unlabel_by(REPO, 7, "clarity: underspecified", "maint")
    removed = payload(
        fake_github, "issues", "unlabeled", REPO, 7, label="clarity: underspecified", author="maint"
    )
    fake_github.label_by(REPO, 7, "clarity: minor-gaps", "maint")
    added = payload(
        fake_github, "issues", "labeled", REPO, 7, label="clarity: minor-gaps", author="maint"
    )
    assert post(client, "issues", removed, "m-1") == 202
    assert post(client, "issues", added, "m-2") == 202
    requests_before = len(fake_openai.requests)
    run_ready_tasks(stack.queue)

    [row] = human_rows(stack)
    assert (row.dimension, row.human_score, row.our_score, row.login) == ("clarity", 1, 3, "maint")
    assert row.our_votes == [3, 3, 3] and row.model == "openai/fake"
    assert len(fake_openai.requests) == requests_before  # feedback is never re-voted
    assert fake_github.label_names(REPO, 7) == ["clarity: minor-gaps"]  # people have the last word

    env = {"SPICE_DATA_DIR": str(config.data_dir)}
    done = CliRunner().invoke(cli, ["eval", "--from-store", "--resamples", "50"], env=env)
    assert done.exit_code == 0, done.output
    assert "1 item with a maintainer's label" in done.output
    assert "clarity [majority] n=1" in done.output
    none = CliRunner().invoke(cli, ["eval", "--from-store", "--repo", "other/repo"], env=env)
    assert none.exit_code == 1 and "nothing to measure" in none.output


def test_spice_feedback_from_a_maintainer_is_a_human_label(
    app_stack: tuple[TestClient, Stack, Settings],
    fake_github: FakeGitHub,
    fake_openai: FakeOpenAI,
) -> None:
    client, stack, _ = app_stack
    fake_github.add_issue(REPO, 8, "Crash on empty input", "`parse('')` raises KeyError.")
    fake_openai.responder = scripted([2])
    assert post(client, "issues", payload(fake_github, "issues", "opened", REPO, 8), "o-8") == 202
    run_ready_tasks(stack.queue)
    fake_github.set_permission(REPO, "maint", "write")
    fake_github.set_permission(REPO, "drive-by", "read")
    for n, (author, body) in enumerate(
        [
            ("drive-by", "/spice feedback clarity well-specified"),
            ("maint", "/spice feedback clarity sparkly"),
            ("maint", "Thanks!\n\n/spice feedback clarity well-specified"),
        ]
    ):
        posted = fake_github.add_comment(REPO, 8, body, author)
        event = payload(
            fake_github,
            "issue_comment",
            "created",
            REPO,
            8,
            body=body,
            author=author,
            comment_id=posted["id"],
        )
        assert post(client, "issue_comment", event, f"c-{n}") == 202
    requests_before = len(fake_openai.requests)
    run_ready_tasks(stack.queue)

    [row] = human_rows(stack)  # the refused and the garbled ones store nothing
    assert (row.dimension, row.human_score, row.our_score, row.login) == ("clarity", 0, 2, "maint")
    assert len(fake_openai.requests) == requests_before


def test_calibration_changes_a_label_only_after_the_minimum_and_says_so(tmp_path: Path) -> None:
    with app_pipeline(tmp_path, [REPO], calibration_min_labels=3) as app:
        labels = app.github.label_names
        # Items we called clarity 1 by votes 1 · 1 · 3, which the maintainers call 3.
        for n in (101, 102):
            app.open_issue(REPO, n, "Crash", [1, 1, 3])
            app.relabel(REPO, n, "clarity: underspecified")
        app.open_issue(REPO, 9, "Crash", [1, 1, 3])
        assert "clarity: minor-gaps" in labels(REPO, 9)  # 2 < 3: majority
        assert "Calibrated" not in app.github.issue_comments(REPO, 9)[0]["body"]

        app.relabel(REPO, 9, "clarity: underspecified")  # the third maintainer label
        app.open_issue(REPO, 10, "Crash", [1, 1, 3])
        assert "clarity: underspecified" in labels(REPO, 10)
        assert "clarity: minor-gaps" not in labels(REPO, 10)
        body = app.github.issue_comments(REPO, 10)[0]["body"]
    assert "Calibrated for this repository from 3 maintainer labels" in body
    assert "calibration: false" in body

"""The App's store filled the way the App fills it: signed deliveries posted to the webhook, the
queue worker's production handler, the fake GitHub and the fake model on 127.0.0.1.

Tests of what reads the store (the dashboard, its export, `spice eval --from-store`) start from
these rows, never from rows written by hand, so a field the App does not write cannot hide.

    with app_pipeline(tmp_path, ["acme/widgets"]) as app:
        app.open_issue("acme/widgets", 1, "Crash on empty input", votes=[1, 1, 2])
        app.relabel("acme/widgets", 1, "clarity: well-specified")
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import update

from app.harvest.validation_task import register_validation_task
from app.settings import Settings
from app.store.models import Assessment, HumanLabel, utcnow
from app.web.app import create_app
from tests.fakes.github_fixtures import payload, scripted, settings_for
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.service.deliveries import SECRET, signed_headers
from tests.service.github_worker_handler import make_handler
from tests.service.stack import Stack, build_stack, run_ready_tasks

PRICED_MODEL = "openai/gpt-4o-mini"
"""A model litellm knows the price of (its requests go to the fake): decisions have a cost."""
ISSUE_BODY = (
    "Calling `parse_config('')` raises `KeyError: 'name'` in `src/widgets/config.py`.\n\n"
    "```python\nfrom widgets.config import parse_config\nparse_config('')\n```\n\n"
    "It should raise `ValueError('empty config')` instead."
)
SOURCE_PATCH = {
    "filename": "src/widgets/config.py",
    "patch": "@@ -1,2 +1,4 @@\n def parse_config(s):\n-    return load(s)\n+    if not s:\n"
    '+        raise ValueError("empty config")\n+    return load(s)',
}
TEST_PATCH = {
    "filename": "tests/test_config.py",
    "status": "added",
    "patch": "@@ -0,0 +1,4 @@\n+import pytest\n+def test_empty():\n"
    '+    with pytest.raises(ValueError):\n+        parse_config("")',
}


@dataclass
class AppPipeline:
    """The App with its worker, fed through GitHub's front door."""

    github: FakeGitHub
    model: FakeOpenAI
    settings: Settings
    client: TestClient
    stack: Stack
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def deliver(self, event: str, body: dict[str, Any]) -> None:
        """Post one signed delivery and let the worker run everything it queued."""
        raw = json.dumps(body).encode()
        headers = signed_headers(raw, event, f"pipeline-{next(self._ids)}")
        answer = self.client.post("/webhook", content=raw, headers=headers)
        assert answer.status_code == 202, answer.text
        run_ready_tasks(self.stack.queue)

    def open_issue(
        self,
        repo: str,
        number: int,
        title: str,
        votes: list[int],
        body: str = ISSUE_BODY,
        candidate: str = "none",
        echo: bool = False,
    ) -> None:
        """An issue is opened; the model votes `votes` on clarity (and `candidate`), its
        rationales quoting the issue with `echo`."""
        self.github.add_issue(repo, number, title, body)
        self.model.responder = scripted(votes, candidate=candidate, echo=echo)
        self.deliver("issues", payload(self.github, "issues", "opened", repo, number))

    def open_pull(self, repo: str, number: int, title: str, votes: list[int]) -> None:
        """A pull request fixing issue `number - 1` (which must exist) with a source change
        and a test; the model votes `votes` on every PR dimension."""
        self.github.add_pull(
            repo,
            number,
            title,
            f"Fixes #{number - 1}",
            files=[SOURCE_PATCH, TEST_PATCH],
            commits=[title.lower()],
        )
        self.model.responder = scripted(votes)
        self.deliver("pull_request", payload(self.github, "pull_request", "opened", repo, number))

    def merge_pull(self, repo: str, number: int) -> None:
        """The pull request `number` (opened with `open_pull`) is merged: the App harvests its
        task instance, and its validation task runs (and, with live validation off, records
        why it did not validate)."""
        stamp = "2026-10-01T00:00:00Z"
        self.github.edit_issue(repo, number, state="closed")
        self.github.repos[repo].pulls[number].update(merged=True, merged_at=stamp, closed_at=stamp)
        self.deliver("pull_request", payload(self.github, "pull_request", "closed", repo, number))

    def relabel(self, repo: str, number: int, label: str | None, by: str = "maintainer") -> None:
        """A maintainer takes our clarity label off and puts `label` on (None: none)."""
        for ours in [n for n in self.github.label_names(repo, number) if n.startswith("clarity")]:
            self.github.unlabel_by(repo, number, ours, by)
            event = payload(self.github, "issues", "unlabeled", repo, number, label=ours, author=by)
            self.deliver("issues", event)
        if label is not None:
            self.github.label_by(repo, number, label, by)
            event = payload(self.github, "issues", "labeled", repo, number, label=label, author=by)
            self.deliver("issues", event)

    def backdate(self, repo: str, number: int, decided: float, labelled: float) -> None:
        """Date the item's decisions `decided` days back and its maintainer labels `labelled`
        days back: a store lives for weeks, a test does not. Only the time changes; every
        other field is as the pipeline wrote it."""
        now = utcnow()
        with self.stack.sessions.begin() as session:
            for table, column, days in (
                (Assessment, "created_at", decided),
                (HumanLabel, "changed_at", labelled),
            ):
                session.execute(
                    update(table)
                    .where(table.repo == repo, table.number == number)
                    .values({column: now - timedelta(days=days)})
                )


@contextmanager
def app_pipeline(data_dir: Path, repos: list[str], **overrides: Any) -> Iterator[AppPipeline]:
    """The App (its webhook in-process) and its worker's handler on one store in `data_dir`,
    GitHub and the model faked on loopback; `overrides` go to the settings."""
    with FakeGitHub() as github, FakeOpenAI() as model:
        for repo in repos:
            github.add_repo(repo)
        values: dict[str, Any] = {
            "data_dir": data_dir,
            "webhook_secret": SECRET.decode(),
            "model": PRICED_MODEL,
            "github_web_url": github.base_url,
            "live_validation": False,
        }
        settings = settings_for(github, model, **(values | overrides))
        enqueue: list[Callable[[str], object]] = []
        handler = make_handler(settings, on_instance_saved=lambda iid: enqueue[0](iid))
        stack = build_stack(settings, runner_handler=handler)
        enqueue.append(register_validation_task(stack.queue.huey, settings))
        with TestClient(create_app(settings)) as client:
            yield AppPipeline(github, model, settings, client, stack)

"""What the App decides is what the dashboard shows: a signed `issues.opened` posted to
`spice serve`, handled by `spice worker` (the production handler, GitHub and the model faked
on 127.0.0.1), then read in headless Chromium on the repository page."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.store.assessments import assessments_for
from app.store.engine import database_url, make_engine, session_factory
from tests.browser_support import NO_CHROMIUM, chromium, chromium_path, sign_in_with_token
from tests.fakes.github_fixtures import REPO, fake_github_fixture, payload, scripted  # noqa: F401
from tests.fakes.github_server import FakeGitHub
from tests.fakes.openai_server import FakeOpenAI
from tests.pipeline_store import ISSUE_BODY, PRICED_MODEL
from tests.service.deliveries import SECRET, signed_headers
from tests.service.settings import service_settings
from tests.test_web_serve import ROOT, SPICE, env_for, free_port

TOKEN = "operator-token-for-the-app-test-0123"
PATIENCE_S = 600
"""Only against a hang: on a loaded machine `spice worker`'s start-up alone has taken a minute,
so the waits below end early on what can be seen instead (a process that died)."""
TITLE = "parse_config crashes on an empty file"


@dataclass(frozen=True)
class App:
    url: str
    processes: dict[str, subprocess.Popen[bytes]]
    logs: Path

    def wait_until(self, condition: Callable[[], object], what: str) -> None:
        """Until `condition` holds; fails at once, with its log, if a process has died."""
        deadline = time.monotonic() + PATIENCE_S
        while not condition():
            for name, process in self.processes.items():
                if process.poll() is not None:
                    log = (self.logs / f"{name}.log").read_text(errors="replace")[-2000:]
                    pytest.fail(
                        f"`spice {name}` ended ({process.returncode}) before {what}:\n{log}"
                    )
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.1)


@pytest.fixture
def app_processes(
    tmp_path: Path, fake_github: FakeGitHub, fake_openai: FakeOpenAI
) -> Iterator[App]:
    """`spice serve` and `spice worker` on one data directory."""
    if chromium_path() is None:
        pytest.skip(NO_CHROMIUM)
    port = free_port()
    env = env_for(
        tmp_path,
        SPICE_WEBHOOK_SECRET=SECRET.decode(),
        SPICE_DASHBOARD_TOKEN=TOKEN,
        SPICE_GITHUB_WEB_URL=fake_github.base_url,
        SPICE_GITHUB_API_URL=fake_github.base_url,
        SPICE_GITHUB_TOKEN=fake_github.bot_token,
        SPICE_BOT_LOGIN=fake_github.bot_login,
        SPICE_MODEL=PRICED_MODEL,
        SPICE_API_BASE=fake_openai.api_base,
        SPICE_API_KEY="sk-test-model-key-123",
        SPICE_OUTPUT_MODE="json_object",
        SPICE_MAX_ATTEMPTS="1",
        PYTHONPATH=str(ROOT),
    )
    commands = {
        "serve": [SPICE, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "1"],
        "worker": [
            SPICE,
            "worker",
            "--threads",
            "1",
            "--handler",
            "tests.service.github_worker_handler:make_handler",
        ],
    }
    started = {
        name: subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(tmp_path / f"{name}.log", "wb"),  # noqa: SIM115
        )
        for name, command in commands.items()
    }
    try:
        yield App(f"http://127.0.0.1:{port}", started, tmp_path)
    finally:
        for process in started.values():
            process.terminate()
        for process in started.values():
            process.wait(timeout=20)


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
    except httpx.TransportError:
        return False


def test_a_signed_issue_shows_with_title_rationales_and_evidence(
    app_processes: App, fake_github: FakeGitHub, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    app, url = app_processes, app_processes.url
    fake_github.add_issue(REPO, 7, TITLE, ISSUE_BODY)
    fake_openai.responder = scripted([1, 1, 2], candidate="partial")
    app.wait_until(lambda: answers(url), "spice serve to answer")
    body = json.dumps(payload(fake_github, "issues", "opened", REPO, 7)).encode()
    sent = httpx.post(
        f"{url}/webhook", content=body, headers=signed_headers(body, "issues", "accept-1")
    )
    assert sent.status_code == 202, sent.text
    sessions = session_factory(make_engine(database_url(service_settings(tmp_path))))

    def stored() -> bool:
        with sessions() as session:
            return bool(assessments_for(session, REPO, 7))

    app.wait_until(stored, "the worker to store its decision")
    assert fake_github.issue_comments(REPO, 7)  # and it was published on GitHub

    with chromium(chromium_path() or "") as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(120_000)  # Playwright's 30 s, on a loaded machine
        sign_in_with_token(page, url, TOKEN)
        page.click(f"text={REPO}")
        decision = page.get_by_test_id("decision")
        decision.wait_for()
        assert decision.count() == 1
        assert decision.locator(".title").all_inner_texts() == [TITLE]
        for summary in decision.locator("summary").all():
            summary.click()  # open the rationales and the evidence, as a reader would
        rationales = decision.get_by_test_id("rationales").locator("li")
        assert rationales.count() == 3 and rationales.first.is_visible()
        assert [t.split(":")[0] for t in rationales.all_inner_texts()] == [
            "Vote 1",
            "Vote 2",
            "Vote 3",
        ]
        evidence = decision.get_by_test_id("evidence")
        assert evidence.is_visible()
        assert "reproduction" in evidence.inner_text() and "full" in evidence.inner_text()
        text = decision.inner_text()
        assert "Clarity: minor-gaps" in text and "majority" in text
        assert "Candidate solution: partial" in text  # what the vote means, not a bare 1
        assert decision.get_by_test_id("decision-note").count() == 0
        page.close()

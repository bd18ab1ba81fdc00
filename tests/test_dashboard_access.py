"""Dashboard sign-in and access: nobody sees a repository they may not write to.

The app runs in-process (TestClient); GitHub is the fake on 127.0.0.1, reached over real HTTP
by the sign-in code, with its OAuth web flow and per-user repository permissions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli.main import cli
from app.web.app import create_app
from tests.dashboard_support import HOSTILE_TITLE, ISSUES, OPERATOR_TOKEN
from tests.fakes.github_server import FakeGitHub
from tests.pipeline_store import AppPipeline, app_pipeline
from tests.service.deliveries import SECRET


@pytest.fixture
def site(dashboard_site: AppPipeline) -> AppPipeline:
    return dashboard_site


@pytest.fixture
def github(site: AppPipeline) -> FakeGitHub:
    return site.github


@pytest.fixture
def client(site: AppPipeline) -> Iterator[TestClient]:
    """A browser of its own (no cookies) on the seeded App."""
    with TestClient(create_app(site.settings)) as test_client:
        yield test_client


def sign_in_as(client: TestClient, github: FakeGitHub, login: str) -> httpx.Response:
    """The whole web flow: our redirect to GitHub, GitHub's redirect back, our callback."""
    github.web_flow.browser_user = login
    to_github = client.get("/dashboard/login/github", follow_redirects=False)
    assert to_github.status_code == 303
    back = httpx.get(to_github.headers["location"], follow_redirects=False)
    assert back.status_code == 302
    callback = urlsplit(back.headers["location"])
    assert callback.path == "/dashboard/oauth/callback"
    return client.get(f"{callback.path}?{callback.query}", follow_redirects=False)


def test_pages_need_a_sign_in(client: TestClient) -> None:
    for path in ("/dashboard", "/dashboard/repos/acme/widgets"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 303
        assert answer.headers["location"] == "/dashboard/login"
    export = client.get("/dashboard/repos/acme/widgets/export.jsonl")
    assert export.status_code == 401
    assert "acme" not in export.text


def test_github_user_sees_only_repositories_they_can_write_to(
    client: TestClient, github: FakeGitHub
) -> None:
    signed = sign_in_as(client, github, "alice")
    assert signed.status_code == 303, signed.text
    index = client.get("/dashboard")
    assert "acme/widgets" in index.text
    assert "secret-plans" not in index.text and "other/tool" not in index.text
    assert client.get("/dashboard/repos/acme/widgets").status_code == 200
    for hidden in ("acme/secret-plans", "other/tool"):
        page = client.get(f"/dashboard/repos/{hidden}")
        export = client.get(f"/dashboard/repos/{hidden}/export.jsonl")
        unknown = client.get("/dashboard/repos/nobody/nothing")
        # Not allowed and not there read the same: the name is not confirmed.
        assert page.status_code == export.status_code == unknown.status_code == 404
        assert page.text == unknown.text
    # The user's GitHub token was used during the callback only, never stored in the cookie.
    cookie = client.cookies.get("spice_dashboard") or ""
    assert "ghu_" not in cookie and len(cookie) < 4000


def test_letter_case_does_not_open_a_hidden_repository(
    client: TestClient, github: FakeGitHub
) -> None:
    sign_in_as(client, github, "alice")
    assert client.get("/dashboard/repos/ACME/Widgets").status_code == 200
    assert client.get("/dashboard/repos/ACME/Secret-Plans").status_code == 404


def test_someone_without_write_access_sees_nothing(client: TestClient, github: FakeGitHub) -> None:
    sign_in_as(client, github, "mallory")  # read access at most, everywhere
    index = client.get("/dashboard")
    assert 'data-testid="no-repositories"' in index.text
    for repo in ("acme/widgets", "acme/secret-plans", "other/tool"):
        assert repo not in index.text
        assert client.get(f"/dashboard/repos/{repo}").status_code == 404


def test_forged_or_replayed_sign_ins_are_refused(client: TestClient, github: FakeGitHub) -> None:
    sign_in_as(client, github, "alice")
    good = client.cookies.get("spice_dashboard") or ""
    client.cookies.clear()
    # A cookie edited to widen access (or signed with another key) is no sign-in at all.
    forged = good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB")
    client.cookies.set("spice_dashboard", forged, path="/dashboard")
    assert client.get("/dashboard", follow_redirects=False).status_code == 303
    client.cookies.clear()
    # A callback with a state GitHub did not get from us is refused, as is a code used twice.
    github.web_flow.browser_user = "alice"
    start = client.get("/dashboard/login/github", follow_redirects=False)
    back = urlsplit(httpx.get(start.headers["location"]).headers["location"])
    assert client.get(f"{back.path}?{back.query}".replace("state=", "state=x")).status_code == 400
    assert client.get(f"{back.path}?{back.query}", follow_redirects=False).status_code == 303
    client.cookies.clear()
    start = client.get("/dashboard/login/github", follow_redirects=False)  # a fresh state
    replay = client.get(f"{back.path}?{back.query}", follow_redirects=False)
    assert replay.status_code in (400, 502)
    assert "spice_dashboard" not in replay.cookies


def test_operator_token_sees_everything_and_wrong_tokens_do_not(client: TestClient) -> None:
    wrong = client.post("/dashboard/login", data={"token": "guess"}, follow_redirects=False)
    assert wrong.status_code == 401
    assert "spice_dashboard" not in wrong.cookies
    bearer = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    export = client.get(
        "/dashboard/repos/acme/secret-plans/export.jsonl?include_unvalidated=true", headers=bearer
    )
    assert export.status_code == 200
    assert [r for r in export.text.splitlines() if r]  # the one instance harvested there
    ok = client.post("/dashboard/login", data={"token": OPERATOR_TOKEN}, follow_redirects=False)
    assert ok.status_code == 303
    index = client.get("/dashboard")
    for repo in ("acme/widgets", "acme/secret-plans", "other/tool"):
        assert repo in index.text


def test_hostile_text_is_shown_as_text(client: TestClient) -> None:
    client.post("/dashboard/login", data={"token": OPERATOR_TOKEN})
    page = client.get("/dashboard/repos/acme/widgets?page=2")
    page_one = client.get("/dashboard/repos/acme/widgets")
    body = page.text + page_one.text
    assert HOSTILE_TITLE not in body
    assert "&lt;script&gt;" in body
    assert "script-src" not in page_one.headers["content-security-policy"]
    assert page_one.headers["content-security-policy"].startswith("default-src 'none'")


def test_export_lists_validated_instances_unless_asked(client: TestClient) -> None:
    # The App harvested the merged pull request; with live validation off it is unvalidated.
    bearer = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    validated = client.get("/dashboard/repos/acme/widgets/export.jsonl", headers=bearer)
    everything = client.get(
        "/dashboard/repos/acme/widgets/export.jsonl?include_unvalidated=true", headers=bearer
    )
    assert validated.status_code == 200 and validated.text == ""
    [instance] = [json.loads(line) for line in everything.text.splitlines()]
    assert instance["instance_id"] == "acme__widgets-22"
    assert instance["spice"]["validation"]["status"] == "sandbox_unavailable"
    assert 'filename="acme__widgets.jsonl"' in validated.headers["content-disposition"]


def test_secrets_in_rationales_are_redacted(site: AppPipeline, client: TestClient) -> None:
    leaked = f"token {SECRET.decode()} and sk-proj-{'a1B2' * 10}"
    site.open_issue("acme/leaky", 7, leaked, [2, 2, 2], body=leaked, echo=True)
    client.post("/dashboard/login", data={"token": OPERATOR_TOKEN})
    page = client.get("/dashboard/repos/acme/leaky")
    assert page.status_code == 200
    assert SECRET.decode() not in page.text and "a1B2a1B2a1B2" not in page.text
    assert page.text.count("[redacted]") >= 4  # the title and the three rationales


def test_every_decision_the_app_stored_shows_in_full(client: TestClient) -> None:
    client.post("/dashboard/login", data={"token": OPERATOR_TOKEN})
    pages = [client.get(f"/dashboard/repos/acme/widgets?page={n}").text for n in (1, 2)]
    cards = [c for page in pages for c in page.split('data-testid="decision"')[1:]]
    assert len(cards) == ISSUES + 1  # the issues and the pull request
    for card in cards:
        assert 'class="title"' in card and 'data-testid="decision-note"' not in card
        assert 'data-testid="evidence"' in card and "Rationales (3)" in card
        assert card.count("<li>Vote ") >= 3
        assert "unanimous</span>" in card or "majority</span>" in card
    [pull] = [c for c in cards if "pull request #22" in c]
    assert "Raise ValueError on an empty config" in pull and "difficulty_prior" in pull
    assert pull.count("Rationales (3)") == 2  # test adequacy and difficulty
    partial = next(c for c in cards if "issue #3<" in c)
    assert '<strong>Candidate solution</strong>: <span class="label">partial</span>' in partial


def test_eval_from_store_reads_what_the_app_stored(site: AppPipeline) -> None:
    env = {"SPICE_DATA_DIR": str(site.settings.data_dir)}
    args = ["eval", "--from-store", "--repo", "acme/widgets", "--resamples", "50"]
    done = CliRunner().invoke(cli, args, env=env)
    assert done.exit_code == 0, done.output
    # The dashboard's figures: 14 maintainer labels, 7 agreeing; one removed with none left.
    assert "14 items with a maintainer's label" in done.output
    assert "1 label removed without a replacement" in done.output
    assert "clarity [majority] n=14\n  accuracy         0.500" in done.output
    assert re.search(r"^  acme/widgets +n=14 ", done.output, re.M), done.output


def test_an_unknown_price_is_not_a_free_one(tmp_path: Path) -> None:
    unpriced = {"model": "openai/fake", "dashboard_token": OPERATOR_TOKEN}
    with app_pipeline(tmp_path, ["acme/unpriced"], **unpriced) as app:
        app.open_issue("acme/unpriced", 1, "Crash on empty input", [1, 1, 1])
        app.client.post("/dashboard/login", data={"token": OPERATOR_TOKEN})
        page = app.client.get("/dashboard/repos/acme/unpriced").text
    headline = page.split('data-testid="spend"', 1)[1].split("</div>", 1)[0]
    assert "$0.0000" not in headline and "unknown" in headline
    assert "1 decision of unknown cost" in headline
    assert "cost unknown" in page  # the decision says so too


def test_a_web_worker_loads_the_pages_only_when_one_is_asked_for() -> None:
    import subprocess
    import sys

    heavy = ["jinja2", "app.harvest.export", "app.web.dashboard.pages", "github"]
    probe = f"import sys, app.web.app; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]", out.stdout

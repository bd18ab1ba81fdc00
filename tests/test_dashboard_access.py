"""Dashboard sign-in and access: nobody sees a repository they may not write to.

The app runs in-process (TestClient); GitHub is the fake on 127.0.0.1, reached over real HTTP
by the sign-in code, with its OAuth web flow and per-user repository permissions.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient

from app.store.engine import database_url, make_engine, session_factory
from app.web.app import create_app
from tests.dashboard_support import HOSTILE_TITLE, OPERATOR_TOKEN, dashboard_settings, seed
from tests.fakes.github_oauth import OAuthApp
from tests.fakes.github_server import FakeGitHub

CLIENT_ID = "Iv1.dashboardtest"
CLIENT_SECRET = "oauth-secret-for-tests"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.web_flow.apps[CLIENT_ID] = OAuthApp(CLIENT_ID, CLIENT_SECRET, "http://testserver/")
        for repo in ("acme/widgets", "acme/secret-plans", "other/tool"):
            gh.add_repo(repo)
        gh.repos["acme/secret-plans"].data["private"] = True
        gh.set_permission("acme/widgets", "alice", "write")
        gh.set_permission("acme/secret-plans", "alice", "none")
        gh.set_permission("other/tool", "alice", "read")
        yield gh


@pytest.fixture
def client(tmp_path: Path, github: FakeGitHub) -> Iterator[TestClient]:
    settings = dashboard_settings(
        tmp_path,
        github_api_url=github.base_url,
        github_web_url=github.base_url,
        github_oauth_client_id=CLIENT_ID,
        github_oauth_client_secret=CLIENT_SECRET,
    )
    app = create_app(settings)
    sessions = session_factory(make_engine(database_url(settings)))
    for repo in ("acme/widgets", "acme/secret-plans", "other/tool"):
        seed(sessions, repo, hostile=repo == "acme/widgets")
    with TestClient(app) as test_client:
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
    export = client.get("/dashboard/repos/acme/secret-plans/export.jsonl", headers=bearer)
    assert export.status_code == 200
    [exported] = [json.loads(r) for r in export.text.splitlines() if r]  # one validated instance
    assert exported["spice"]["test_strength"]["score"] == 0.75
    ok = client.post("/dashboard/login", data={"token": OPERATOR_TOKEN}, follow_redirects=False)
    assert ok.status_code == 303
    index = client.get("/dashboard")
    for repo in ("acme/widgets", "acme/secret-plans", "other/tool"):
        assert repo in index.text
    page = client.get("/dashboard/repos/acme/secret-plans").text
    assert (
        "Test strength" in page and '<td class="num" data-testid="strength">0.75 (3/4)</td>' in page
    )


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
    bearer = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    validated = client.get("/dashboard/repos/acme/widgets/export.jsonl", headers=bearer)
    everything = client.get(
        "/dashboard/repos/acme/widgets/export.jsonl?include_unvalidated=true", headers=bearer
    )
    assert len(validated.text.splitlines()) == 1
    assert len(everything.text.splitlines()) == 2
    assert 'filename="acme__widgets.jsonl"' in validated.headers["content-disposition"]


def test_secrets_in_rationales_are_redacted(tmp_path: Path) -> None:
    from tests.dashboard_support import save_issue
    from tests.service.deliveries import SECRET

    settings = dashboard_settings(tmp_path)
    app = create_app(settings)
    sessions = session_factory(make_engine(database_url(settings)))
    leaked = f"token {SECRET.decode()} and sk-proj-{'a1B2' * 10}"
    save_issue(sessions, "acme/leaky", 7, leaked, [2, 2, 2])
    with TestClient(app) as client:
        client.post("/dashboard/login", data={"token": OPERATOR_TOKEN})
        page = client.get("/dashboard/repos/acme/leaky")
    assert page.status_code == 200
    assert SECRET.decode() not in page.text and "a1B2a1B2a1B2" not in page.text
    assert "[redacted]" in page.text


def test_a_web_worker_loads_the_pages_only_when_one_is_asked_for() -> None:
    import subprocess
    import sys

    heavy = ["jinja2", "app.harvest.export", "app.web.dashboard.pages", "github"]
    probe = f"import sys, app.web.app; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]", out.stdout

"""A store as the App leaves it after weeks of work, every row written by the App itself
(tests.pipeline_store): decisions on issues and a pull request, maintainers' labels, a
harvested instance, spread over weeks. One such site serves every dashboard test of a run
(the `dashboard_site` fixture in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.settings import Settings
from tests.fakes.github_oauth import OAuthApp
from tests.pipeline_store import AppPipeline, app_pipeline
from tests.service.settings import service_settings

OPERATOR_TOKEN = "operator-token-for-tests-0123456789"
HOSTILE_TITLE = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'
ISSUES = 21
"""One more than a page of decisions (with the pull request, two more)."""
REPOS = ["acme/widgets", "acme/secret-plans", "other/tool"]
"""alice may write to the first only; the second is private."""
CLIENT_ID = "Iv1.dashboardtest"
CLIENT_SECRET = "oauth-secret-for-tests"
TEST_CLIENT_URL = "http://testserver/"
"""Where GitHub's web flow sends the browser back to for in-process (TestClient) tests."""


def dashboard_settings(data_dir: Path, **overrides: Any) -> Settings:
    return service_settings(data_dir, dashboard_token=OPERATOR_TOKEN, **overrides)


def seed(app: AppPipeline, repo: str, hostile: bool = False) -> None:
    """Ten weeks of a repository's life: decisions (every fourth one split), a pull request
    merged and harvested, maintainers who agree more and more (older weeks disagree, and two
    weeks have no label), one label removed with none put back."""
    for n in range(1, ISSUES + 1):
        votes = [1, 1, 1] if n % 4 else [1, 2, 3]
        title = HOSTILE_TITLE if hostile and n == 1 else f"Crash when parsing config file {n}"
        app.open_issue(repo, n, title, votes, candidate="partial" if n % 3 == 0 else "none")
    app.open_pull(repo, ISSUES + 1, "Raise ValueError on an empty config", [1, 2, 2])
    app.merge_pull(repo, ISSUES + 1)
    for n in range(1, 15):
        app.relabel(repo, n, "clarity: minor-gaps" if n < 9 else "clarity: ambiguous")
    app.relabel(repo, 15, None)
    for n in range(1, ISSUES + 2):
        # One maintainer label a week, then two weeks with none (holidays), then the rest.
        labelled = n * 7 + (14 if n > 7 else 0) if n < 15 else 1
        app.backdate(repo, n, decided=n * 2.5, labelled=labelled)


def seed_one(app: AppPipeline, repo: str) -> None:
    """A repository with one decision, for tests about who may see it."""
    app.open_issue(repo, 1, "Crash when parsing config file 1", [1, 1, 1])


@contextmanager
def dashboard_site(data_dir: Path) -> Iterator[AppPipeline]:
    """The App after weeks on `REPOS`: the first seeded in full (a hostile title on #1), the
    others with one decision, the private one with a harvested pull request too."""
    oauth = {"github_oauth_client_id": CLIENT_ID, "github_oauth_client_secret": CLIENT_SECRET}
    with app_pipeline(data_dir, REPOS, dashboard_token=OPERATOR_TOKEN, **oauth) as app:
        gh = app.github
        gh.web_flow.apps[CLIENT_ID] = OAuthApp(CLIENT_ID, CLIENT_SECRET, TEST_CLIENT_URL)
        gh.repos["acme/secret-plans"].data["private"] = True
        gh.set_permission("acme/widgets", "alice", "write")
        gh.set_permission("acme/secret-plans", "alice", "none")
        gh.set_permission("other/tool", "alice", "read")
        seed(app, "acme/widgets", hostile=True)
        for repo in REPOS[1:]:
            seed_one(app, repo)
        app.open_pull("acme/secret-plans", 2, "Raise on empty input", [1, 1, 1])
        app.merge_pull("acme/secret-plans", 2)
        yield app

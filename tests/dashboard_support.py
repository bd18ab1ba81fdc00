"""A store as the App leaves it after weeks of work, every row written by the App itself
(tests.pipeline_store): decisions on issues and a pull request, maintainers' labels, a
harvested instance, spread over weeks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.settings import Settings
from tests.pipeline_store import AppPipeline
from tests.service.settings import service_settings

OPERATOR_TOKEN = "operator-token-for-tests-0123456789"
HOSTILE_TITLE = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'
ISSUES = 21
"""One more than a page of decisions (with the pull request, two more)."""


def dashboard_settings(data_dir: Path, **overrides: Any) -> Settings:
    return service_settings(data_dir, dashboard_token=OPERATOR_TOKEN, **overrides)


def seed(app: AppPipeline, repo: str, hostile: bool = False) -> None:
    """Ten weeks of a repository's life: decisions (every fourth one split), a pull request
    merged and harvested, maintainers who agree more and more (older weeks disagree), one
    label removed with none put back."""
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

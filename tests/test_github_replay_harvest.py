"""What an outside replay of GitHub found `spice harvest` getting wrong, each through a whole
`spice harvest` run against the fake GitHub (CLI -> store -> report)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli.main import cli
from app.harvest import budget
from app.settings import Settings
from app.store.engine import database_url
from tests.fakes.github_server import FakeGitHub
from tests.fakes.harvest_history import History, seed_history
from tests.harvest_support import harvest_env, store_at
from tests.test_github_auth import _pem_pair

N_PRS = 8


@pytest.fixture(autouse=True)
def own_request_budgets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process keeps one request budget per token: these runs must not spend the one
    later tests pace themselves by."""
    monkeypatch.setattr(budget, "_BUDGETS", {})


def harvest(gh: FakeGitHub, env: dict[str, str], *args: str, timeout_s: float = 60) -> Any:
    """`spice harvest` in a thread: a run that loops forever fails the test, not the suite."""
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(CliRunner().invoke, cli, ["harvest", *args, "--no-label"], env=env)
        try:
            return future.result(timeout=timeout_s)
        except FutureTimeout:
            gh.fail_next(404, times=10**6)  # ends the runaway run so the pool can close
            pytest.fail(f"harvest still running after {timeout_s}s: {len(gh.requests)} requests")


def kept_numbers(tmp_path: Path) -> set[int]:
    settings = Settings(data_dir=tmp_path / "data")
    rows = store_at(database_url(settings)).instances()
    return {int(r.instance["instance_id"].rsplit("-", 1)[1]) for r in rows}


def expected(history: History) -> set[int]:
    return {p.number for p in history.kept}


def test_a_token_revoked_mid_harvest_is_minted_again_once(tmp_path: Path) -> None:
    private, public = _pem_pair()
    with FakeGitHub() as gh:
        gh.jwt_public_key = public
        history = seed_history(gh, n_prs=N_PRS)
        gh.revoke_tokens_on(f"/pulls/{history.kept[2].number}/commits")
        env = harvest_env(gh, tmp_path, SPICE_GITHUB_APP_ID=str(gh.app_id))
        env |= {"SPICE_GITHUB_PRIVATE_KEY": private, "SPICE_GITHUB_TOKEN": ""}
        done = harvest(gh, env, history.repo, "--installation-id", "1", "--workers", "1")
        assert done.exit_code == 0, done.output
        assert gh.token_requests == 2
    assert kept_numbers(tmp_path) == expected(history)


def test_a_linked_issue_beside_a_graphql_not_found_is_harvested(tmp_path: Path) -> None:
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=N_PRS)
        [sidebar] = [p for p in history.kept if p.scenario == "graphql_only"][:1]
        state = gh.repos[history.repo]
        state.closing[sidebar.number] = [None, *state.closing[sidebar.number]]
        done = harvest(gh, harvest_env(gh, tmp_path), history.repo)
        assert done.exit_code == 0, done.output
    assert sidebar.number in kept_numbers(tmp_path)
    assert kept_numbers(tmp_path) == expected(history)


def test_a_harvest_after_a_rename_keeps_its_query_through_githubs_redirect(
    tmp_path: Path,
) -> None:
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=N_PRS)
        for n in range(35):  # open PRs: a listing that lost `state` would page through these
            gh.add_pull(history.repo, 500 + n, f"Open {n}", "WIP")
        gh.rename_repository(history.repo, "acme/gizmos")
        done = harvest(gh, harvest_env(gh, tmp_path), history.repo, timeout_s=30)
        assert done.exit_code == 0, done.output
        report = json.loads(done.stdout)
        assert report["processed"] == sum(1 for p in history.prs if p.merged_at)
        # Not a terminal: a line per PR instead of a bar nobody sees.
        assert done.stderr.count("harvest: [") == report["processed"], done.stderr[-2000:]
        moved = [p for m, p in gh.requests if p.startswith(f"/repos/{history.repo}/")]
        assert len(moved) <= 1  # the new name is learned once, not paid for on every call
    assert kept_numbers(tmp_path) == expected(history)


def test_commits_with_null_author_and_committer_are_harvested(tmp_path: Path) -> None:
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=N_PRS)
        ghostly = history.kept[1]
        for commit in gh.repos[history.repo].commits[ghostly.number]:
            commit["commit"]["author"] = commit["commit"]["committer"] = None
        done = harvest(gh, harvest_env(gh, tmp_path), history.repo)
        assert done.exit_code == 0, done.output
    assert kept_numbers(tmp_path) == expected(history)


def test_a_long_rate_limit_says_when_to_rerun(tmp_path: Path) -> None:
    with FakeGitHub() as gh:
        history = seed_history(gh, n_prs=N_PRS)
        gh.graphql_rate_limit(reset_in_s=3600)
        done = harvest(gh, harvest_env(gh, tmp_path), history.repo)
    assert done.exit_code == 1
    assert "unexpected" not in done.output
    assert "rate limit" in done.output and "rerun after" in done.output, done.output

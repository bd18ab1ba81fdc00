"""Harvest over the fake GitHub: the exact expected instance set, resumable without duplicates."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from github import GithubException

from app.harvest.build import Built, Skipped, build_instance
from app.harvest.runner import HarvestContext, HarvestReport, harvest_repo, thread_dispatch
from app.harvest.source import PullSummary
from app.harvest.store import HarvestStore
from tests.fakes.github_server import FakeGitHub
from tests.fakes.harvest_history import History, expected_instance, seed_history
from tests.harvest_support import fake_source, sqlite_store

PLACEHOLDERS = {
    "version": "",
    "environment_setup_commit": "",
    "FAIL_TO_PASS": "[]",
    "PASS_TO_PASS": "[]",
}


@pytest.fixture
def seeded() -> Iterator[tuple[FakeGitHub, History]]:
    with FakeGitHub() as gh:
        yield gh, seed_history(gh)


def run(gh: FakeGitHub, store: HarvestStore, repo: str, **kwargs: object) -> HarvestReport:
    source = fake_source(gh, attempts=int(kwargs.pop("attempts", 2)))  # type: ignore[call-overload]
    ctx = HarvestContext(source=source, store=store)
    with ThreadPoolExecutor(4) as pool:
        return harvest_repo(
            store,
            source,
            repo,
            thread_dispatch(ctx, repo, pool, False),
            **kwargs,  # type: ignore[arg-type]
        )


def expected(history: History) -> dict[str, dict[str, str]]:
    out = {}
    for pr in history.kept:
        inst = expected_instance(history, pr) | PLACEHOLDERS
        out[inst["instance_id"]] = inst
    return out


def test_history_is_realistic(seeded: tuple[FakeGitHub, History]) -> None:
    _, history = seeded
    scenarios = Counter(p.scenario for p in history.prs)
    assert len(history.prs) >= 50
    assert len(history.kept) >= 20 and len(history.prs) - len(history.kept) >= 20
    assert {"multi_issue", "cross_repo_only", "cross_and_same", "unlinked_with_tests"} <= set(
        scenarios
    )
    assert any(len(p.issues) == 3 for p in history.kept)


def test_harvest_reproduces_the_expected_set_exactly(
    seeded: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    gh, history = seeded
    store = sqlite_store(tmp_path)
    report = run(gh, store, history.repo)
    got = {row.instance["instance_id"]: row.instance for row in store.instances()}
    want = expected(history)
    assert sorted(got) == sorted(want)
    for iid, inst in want.items():
        assert got[iid] == inst, iid
    # Hints: SWE-bench's rule, a comment counts only if last updated before the first commit;
    # one written before it but edited after (its text may now carry the fix) does not.
    multi = next(p for p in history.kept if len(p.issues) == 3)
    hints = got[f"acme__widgets-{multi.number}"]["hints_text"]
    assert hints.count("I can reproduce") == 3
    assert "(edited)" not in hints and "thanks!" not in hints
    assert report.skipped["no_linked_issue"] > 0 and report.skipped["not_merged"] > 0
    assert report.skipped["no_test_change"] > 0 and report.skipped["no_source_change"] > 0
    assert report.cursor.last_number == max(p.number for p in history.prs)


def test_rerun_fetches_nothing_new(seeded: tuple[FakeGitHub, History], tmp_path: Path) -> None:
    gh, history = seeded
    store = sqlite_store(tmp_path)
    run(gh, store, history.repo)
    before = len(gh.requests)
    second = run(gh, store, history.repo)
    assert second.processed == 0 and second.kept == []
    # The repository's current name (a rename redirect would drop the listing's query), then
    # only the last listing page (to see whether new PRs arrived).
    assert len(gh.requests) - before == 2


def _listing_pages(gh: FakeGitHub) -> list[int]:
    return [int(q["page"]) for q in gh.pull_listings]


def _built_per_pr(gh: FakeGitHub) -> Counter[str]:
    return Counter(path for method, path in gh.requests if path.endswith("/commits"))


def test_interrupted_harvest_resumes_without_duplicates(
    seeded: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    gh, history = seeded
    store = sqlite_store(tmp_path)
    first = run(gh, store, history.repo, max_prs=20)
    assert first.processed == 20
    assert 0 < len(first.kept) < len(history.kept)
    listed_before = len(_listing_pages(gh))
    second = run(gh, store, history.repo)
    # The second run starts at the cursor's page, not at page 1.
    resumed = _listing_pages(gh)[listed_before:]
    assert resumed[0] == first.cursor.page > 1
    assert resumed == list(range(first.cursor.page, 8))
    assert not set(first.kept) & set(second.kept)
    assert sorted(first.kept + second.kept) == sorted(expected(history))
    assert max(_built_per_pr(gh).values()) == 1, "a PR was fetched twice"
    assert len(store.instances()) == len(history.kept)


def test_crash_midway_keeps_the_cursor_before_the_failed_pr(
    seeded: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    gh, history = seeded
    store = sqlite_store(tmp_path)
    victim = history.kept[len(history.kept) // 2].number
    gh.fail_next(500, times=1, path_contains=f"/pulls/{victim}/commits")
    with pytest.raises(GithubException):
        run(gh, store, history.repo, attempts=1)
    assert store.cursor(history.repo).last_number < victim
    run(gh, store, history.repo)
    assert sorted(r.instance["instance_id"] for r in store.instances()) == sorted(expected(history))
    # Only the PRs that were in flight around the failure were fetched twice.
    assert sum(n - 1 for n in _built_per_pr(gh).values()) <= 8


def test_since_keeps_later_merges_only(seeded: tuple[FakeGitHub, History], tmp_path: Path) -> None:
    from app.harvest.decontam import parse_date

    gh, history = seeded
    store = sqlite_store(tmp_path)
    cutoff = "2024-02-01"
    run(gh, store, history.repo, since=parse_date(cutoff))
    want = {k for k, v in expected(history).items() if v["created_at"] >= "2024-01-31"}
    assert {r.instance["instance_id"] for r in store.instances()} == want


def test_without_graphql_the_keyword_links_still_count(
    seeded: tuple[FakeGitHub, History], tmp_path: Path
) -> None:
    gh, history = seeded
    gh.fail_next(400, times=10_000, message="GraphQL unavailable", path_contains="/graphql")
    store = sqlite_store(tmp_path)
    run(gh, store, history.repo)
    graphql_only = {"graphql_only", "added_test_file"}
    want = {f"acme__widgets-{p.number}" for p in history.kept if p.scenario not in graphql_only}
    assert {r.instance["instance_id"] for r in store.instances()} == want


def test_a_merged_pr_with_a_file_too_large_to_diff_is_built_whole_or_skipped(
    tmp_path: Path,
) -> None:
    big = {"filename": "src/t.py", "patch": "@@ -1 +1 @@\n-A = 1\n+A = 2", "too_large": True}
    test = {"filename": "tests/test_t.py", "patch": "@@ -1 +1 @@\n-assert 1\n+assert 2"}
    with FakeGitHub() as gh:
        gh.add_issue("acme/big", 1, "A is wrong", "A should be 2.")
        gh.add_pull("acme/big", 2, "Fix A", "Fixes #1", files=[big, test])
        pull = PullSummary(
            number=2,
            created_at="2026-01-01T00:00:00Z",
            merged_at="2026-01-02T00:00:00Z",
            base_sha="b" * 40,
            body="Fixes #1",
        )
        built = build_instance(fake_source(gh), "acme/big", pull)
        assert isinstance(built, Built) and "+A = 2" in built.instance.patch
        gh.repos["acme/big"].diffs[2] = None
        skipped = build_instance(fake_source(gh), "acme/big", pull)
        assert isinstance(skipped, Skipped) and skipped.reason == "diff_too_large"

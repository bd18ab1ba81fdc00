"""One merged PR -> one SWE-bench task instance (PRODUCT.md "Harvest"), or why not."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from app.github.diffs import exact_pull_diff
from app.harvest.source import CommentInfo, HarvestSource, IssueInfo, PullSummary
from spice_engine.errors import InputError
from spice_engine.pr.diff_split import SplitRules, split_diff
from spice_engine.pr.linked_issues import find_linked_issues

SkipReason = Literal[
    "not_merged",
    "no_linked_issue",
    "links_incomplete",
    "no_test_change",
    "no_source_change",
    "bad_diff",
    "diff_too_large",
]


class SweInstance(BaseModel):
    """A task instance with SWE-bench's field names and types.

    `version`, `environment_setup_commit`, `FAIL_TO_PASS` and `PASS_TO_PASS` are placeholders:
    SWE-bench's harness reads them (FAIL_TO_PASS/PASS_TO_PASS as JSON-encoded lists), but they
    come from running the tests, which harvesting does not do.
    """

    instance_id: str
    repo: str
    base_commit: str
    patch: str
    test_patch: str
    problem_statement: str
    hints_text: str
    created_at: str
    version: str = ""
    environment_setup_commit: str = ""
    FAIL_TO_PASS: str = "[]"
    PASS_TO_PASS: str = "[]"


class Built(BaseModel):
    instance: SweInstance
    issues: list[int]
    pr_number: int


class Skipped(BaseModel):
    pr_number: int
    reason: SkipReason


def instance_id(repo: str, number: int) -> str:
    """SWE-bench's id: `owner__name-PR`."""
    owner, name = repo.split("/", 1)
    return f"{owner}__{name}-{number}"


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def resolved_issue_numbers(
    repo: str,
    pull: PullSummary,
    commit_messages: list[str],
    graphql_refs: list[tuple[str, int]],
) -> list[int]:
    """Same-repository issues the PR closes: keyword parser and GitHub's own links, united."""
    linked = find_linked_issues(repo, pull.title, pull.body, commit_messages)
    numbers = set(linked.numbers)
    numbers |= {n for full, n in graphql_refs if full.lower() == repo.lower()}
    numbers.discard(pull.number)
    return sorted(numbers)


def problem_statement(issues: list[IssueInfo]) -> str:
    """Each issue's title and body, in issue-number order (SWE-bench's layout)."""
    return "".join(f"{i.title}\n{i.body}\n" for i in issues)


def hints_text(comments: list[CommentInfo], first_commit_at: str | None) -> str:
    """Comments whose last update precedes the PR's first commit (SWE-bench's rule).

    The API gives only a comment's current text: one edited after the fix began may carry
    the fix, so its last update, not its creation, must come before the cutoff.
    """
    if first_commit_at is None:
        return ""
    cutoff = _when(first_commit_at)
    return "\n".join(c.body for c in comments if _when(c.updated_at) < cutoff)


def build_instance(
    source: HarvestSource, repo: str, pull: PullSummary, rules: SplitRules | None = None
) -> Built | Skipped:
    """Fetch what the PR needs, cheapest checks first, and build its instance."""
    if not pull.merged_at:
        return Skipped(pr_number=pull.number, reason="not_merged")
    commits = source.pull_commits(repo, pull.number)
    refs = source.closing_refs(repo, pull.number)
    numbers = resolved_issue_numbers(repo, pull, [c.message for c in commits], refs.refs)
    issues = [i for i in (source.issue(repo, n) for n in numbers) if i and not i.is_pull_request]
    if not issues:
        # "No linked issue" only from GitHub's whole answer; a partial one may have lost it.
        reason: SkipReason = "no_linked_issue" if refs.complete else "links_incomplete"
        return Skipped(pr_number=pull.number, reason=reason)
    diff, missing = exact_pull_diff(
        lambda: source.pull_full_diff(repo, pull.number),
        lambda: source.pull_files(repo, pull.number),
    )
    if missing:  # a gold or test patch without some of its files would not be the PR's
        return Skipped(pr_number=pull.number, reason="diff_too_large")
    try:
        split = split_diff(diff, rules)
    except InputError:
        return Skipped(pr_number=pull.number, reason="bad_diff")
    if not split.test.strip():
        return Skipped(pr_number=pull.number, reason="no_test_change")
    if not split.gold.strip():
        return Skipped(pr_number=pull.number, reason="no_source_change")
    first_commit = min((c.date for c in commits if c.date), key=_when, default=None)
    comments = [c for i in issues for c in source.issue_comments(repo, i.number)]
    instance = SweInstance(
        instance_id=instance_id(repo, pull.number),
        repo=repo,
        base_commit=pull.base_sha,
        patch=split.gold,
        test_patch=split.test,
        problem_statement=problem_statement(issues),
        hints_text=hints_text(comments, first_commit),
        created_at=pull.created_at,
    )
    return Built(instance=instance, issues=[i.number for i in issues], pr_number=pull.number)

"""pull_request opened / synchronize / edited / ready_for_review -> the PR pipeline."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from github import GithubException

from app.github.client import GitHubRepo, IssueData, PullData, complete_pull_diff
from app.github.retries import is_transient
from app.handlers.outcome import Done, Skipped
from app.handlers.run_context import RunContext
from app.model_policy import choose
from spice_engine.models import Issue
from spice_engine.pr.models import PullRequest

log = logging.getLogger(__name__)
MAX_LINKED_ISSUES = 5


def linked_issue_numbers(
    repo: GitHubRepo, number: int, title: str, body: str, commits: list[str], warnings: list[str]
) -> list[int]:
    """Closing keywords (title, body, commit messages) plus GitHub's `closingIssuesReferences`."""
    from spice_engine.pr.linked_issues import find_linked_issues

    found = find_linked_issues(repo.full_name, title, body, commits).numbers
    try:
        refs = repo.closing_issue_refs(number)
    except GithubException as exc:
        if is_transient(exc):  # a rate limit must not pass for "no links": wait for it
            raise
        # The keywords still count; GraphQL may be unavailable to this token.
        warnings.append(f"closingIssuesReferences unavailable ({exc.status}): keywords only")
        refs = []
    for full_name, n in refs:
        if full_name.lower() == repo.full_name.lower() and n not in found:
            found.append(n)
    return [n for n in found if n != number][:MAX_LINKED_ISSUES]


def fetch_issues(repo: GitHubRepo, numbers: list[int], warnings: list[str]) -> list[IssueData]:
    """The linked issues that exist (a typo like `Fixes #99999` is reported, not fatal)."""
    issues = []
    for n in numbers:
        try:
            issues.append(repo.get_issue(n))
        except GithubException as exc:
            if exc.status not in (404, 410):  # 410: the issue was deleted
                raise
            warnings.append(f"linked issue #{n} not found")
    return [i for i in issues if not i.is_pull_request]


@contextmanager
def base_checkout(ctx: RunContext, pr: PullData, warnings: list[str]) -> Iterator[Path | None]:
    """The repository at the PR's base: the caller's checkout (Action), our clone (App), or
    None. A clone that fails is a warning, never a failed job: the patches still judge."""
    if ctx.deps.checkout_dir is not None:
        yield ctx.deps.checkout_dir
        return
    manager = ctx.deps.checkouts
    if manager is None or not pr.clone_url:
        yield None
        return
    from spice_engine.errors import SpiceError

    with ExitStack() as stack:
        path: Path | None = None
        try:
            path = stack.enter_context(
                manager.checkout(
                    ctx.repo.full_name, pr.clone_url, pr.base_sha, ctx.repo.git_http_header()
                )
            )
        except SpiceError as exc:  # a failed clone or fetch, a busy clone, a bad sha
            log.warning("no checkout of %s: %s", ctx.repo.full_name, exc)
            warnings.append(f"repository context unavailable ({exc}): judged on the patches")
        yield path


def engine_pull_request(
    ctx: RunContext, number: int, pr: PullData, warnings: list[str]
) -> PullRequest:
    """The PR as the engine sees it: its full diff, commit messages and linked issues' text."""
    files = ctx.repo.pull_files(number)
    diff, missing = complete_pull_diff(files, lambda: ctx.repo.pull_full_diff(number))
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        warnings.append(f"GitHub gave no diff for {shown} (too large): judged without them")
    commits = [c.message for c in ctx.repo.pull_commits(number)]
    linked = linked_issue_numbers(ctx.repo, number, pr.title, pr.body, commits, warnings)
    issues = fetch_issues(ctx.repo, linked, warnings)
    return PullRequest(
        repo=ctx.repo.full_name,
        number=number,
        title=pr.title,
        body=pr.body,
        diff=diff,
        base_sha=pr.base_sha,
        commit_messages=commits,
        issues=[
            Issue(title=i.title, body=i.body, repo=ctx.repo.full_name, number=i.number)
            for i in issues
        ],
    )


def on_pull_request(ctx: RunContext, payload: dict[str, Any]) -> Done:
    """The event table's entry (app.routing)."""
    return handle_pull_request(ctx, ctx.number)


def handle_pull_request(
    ctx: RunContext, number: int, force: bool = False, explain: bool = False
) -> Done:
    """Assess the PR's latest head against its linked issues and publish."""
    settings, config = ctx.deps.settings, ctx.config
    if not config.pipelines.pull_requests:
        raise Skipped("the pull-request pipeline is disabled in .github/spice.yml")
    from spice_engine.pr.diff_split import SplitRules
    from spice_engine.pr.models import PROptions
    from spice_engine.pr.pipeline import assess_prepared, pr_input_hash, prepare_pr

    pr = ctx.repo.get_pull(number)
    if not force and (config.ignores(pr.author) or pr.author == ctx.bot):
        raise Skipped(f"author {pr.author!r} is ignored")
    if pr.draft and not force:
        raise Skipped("draft pull request: assessed when marked ready for review")
    warnings: list[str] = []
    engine_pr = engine_pull_request(ctx, number, pr, warnings)
    if not engine_pr.diff.strip():  # a branch opened before its first change: nothing to vote on
        raise ctx.report_no_changes(number)
    choice = choose(settings, config, "pull_requests")
    chat = ctx.deps.chat(choice.model)
    options = PROptions(
        votes=choice.votes, cost_cap_usd=choice.cost_cap_usd, allow_unpriced=choice.allow_unpriced
    )
    ctx.skip_if_unchanged("pr", number, pr_input_hash(engine_pr, chat.name, options), force)
    warnings += choice.warnings
    rules = SplitRules(test_globs=config.test_paths)
    from app.handlers.strength_check import measure_with_check
    from spice_engine.strength.catching import TestWriter

    writer = TestWriter(chat, choice.votes, choice.cost_cap_usd, choice.allow_unpriced)
    measured = measure_with_check(ctx, pr, engine_pr, rules, warnings, writer)
    strength = measured.strength
    with base_checkout(ctx, pr, warnings) as repo_path:
        prepared = prepare_pr(engine_pr, options, repo_path, split_rules=rules, strength=strength)
    # Voted with the clone released: other jobs on this repository need not wait for models.
    result = assess_prepared(engine_pr, prepared, chat, options)
    dims = [d for d in (result.tests, result.difficulty) if d is not None]
    tests_score = result.tests.score if result.tests is not None else 0
    actionable = (tests_score or 0) >= 2 or any(d.controversial for d in dims)
    return ctx.publish_assessment(
        "pull_requests",
        number,
        pr.labels,
        result,
        actionable,
        explain,
        warnings,
        suppressed=measured.suppressed,
    )

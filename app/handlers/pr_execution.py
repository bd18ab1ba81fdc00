"""An open pull request's tests run against mutants of its fix (opt-in twice: the operator's
SPICE_EXECUTE_PULL_REQUESTS and the repository's `execute_tests`), in the sandbox, once per
head commit: the result is kept under the data directory by head SHA and reused."""

from __future__ import annotations

import logging
import re
import tempfile
import time
from pathlib import Path

from app.github.models import PullData
from app.handlers.run_context import RunContext
from app.redaction import redacted_excerpt, redacted_outcome
from app.sandboxing import sandbox_for, sandbox_problem
from spice_engine.pr.diff_split import SplitRules, split_diff
from spice_engine.pr.models import PullRequest
from spice_engine.strength.batch import strength_rows
from spice_engine.strength.result import StrengthConfig, TestStrength
from spice_engine.validate.batch import validate_rows
from spice_engine.validate.gitwork import GitError, clone_from_github
from spice_engine.validate.local import LocalExecutor

log = logging.getLogger(__name__)
RESULTS = "pr-strength"
"""Under the data directory: one result per repository and head SHA."""
KEPT = ("measured", "no_mutants", "no_fail_to_pass", "baseline_failed")
"""Results that running again would not change."""


def why_not(ctx: RunContext, pr: PullData) -> str | None:
    """Why this pull request's tests are not executed (None: they are)."""
    settings = ctx.deps.settings
    if not settings.execute_pull_requests or not ctx.config.execute_tests:
        return ""  # not asked for: nothing to say
    if pr.fork and not settings.execute_fork_pull_requests:
        return "tests not executed: pull requests from forks are not run here"
    if why := sandbox_problem(settings):
        return f"tests not executed: no sandbox ({why})"
    return None


def pr_strength(
    ctx: RunContext, pr: PullData, engine_pr: PullRequest, rules: SplitRules, warnings: list[str]
) -> TestStrength | None:
    """The PR's test strength (None when not executed; a warning says why if it was asked)."""
    if (why := why_not(ctx, pr)) is not None:
        if why:
            warnings.append(why)
        return None
    settings = ctx.deps.settings
    secrets = ctx.deps.secrets()
    data = settings.data_dir.resolve()
    repo = ctx.repo.full_name
    kept = data / RESULTS / re.sub(r"[^A-Za-z0-9_.-]+", "+", repo) / f"{pr.head_sha}.json"
    if kept.is_file():
        return TestStrength.model_validate_json(kept.read_text())
    split = split_diff(engine_pr.diff, rules)
    if not split.gold or not split.test:
        return None  # nothing to mutate, or no test to judge by
    try:
        git_dir = clone_from_github(repo, data / "repos", settings.git_base_url)
    except GitError as exc:
        warnings.append(f"tests not executed: cannot clone ({exc})")
        return None
    started = time.monotonic()
    row: dict[str, object] = {
        "instance_id": f"{repo.replace('/', '__')}-{pr.number}",
        "repo": repo,
        "base_commit": pr.base_sha,
        "patch": split.gold,
        "test_patch": split.test,
        "problem_statement": f"{pr.title}\n{pr.body}",
        "created_at": "",
    }
    executor = LocalExecutor(data / "envs", sandbox_for(settings))
    budget = settings.execute_budget_s
    with tempfile.TemporaryDirectory(dir=data, prefix="pr-strength-") as scratch:
        [validated] = validate_rows(
            [row], {repo: git_dir}, executor, Path(scratch), timeout_s=budget / 2
        )
        validation = redacted_outcome(validated, "validation", secrets)["spice"]["validation"]
        if validation["status"] != "valid":
            why = redacted_excerpt(validation["detail"], tail=300, secrets=secrets)
            result = TestStrength(
                status="no_fail_to_pass" if validation["status"] == "no_fail_to_pass" else "error",
                detail=f"validation: {validation['status']}: {why}",
            )
        else:
            left = max(10.0, budget - (time.monotonic() - started))
            config = StrengthConfig(max_mutants=20, budget_s=left)
            [measured] = strength_rows(
                [validated], {repo: git_dir}, executor, Path(scratch), config, timeout_s=left
            )
            measured = redacted_outcome(measured, "test_strength", secrets)
            result = TestStrength.model_validate(measured["spice"]["test_strength"])
    if result.status in KEPT:
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(result.model_dump_json())
    else:  # an environment that failed to build, a timeout: the next event tries again
        why = redacted_excerpt(result.detail, head=300, secrets=secrets)
        warnings.append(f"tests executed but not measured: {result.status} {why}")
    log.info("test strength %s#%d %s: %s", repo, pr.number, pr.head_sha[:12], result.status)
    return result

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
from app.redaction import redact, redacted_excerpt
from app.sandboxing import sandbox_problem
from app.settings import Settings
from spice_engine.langs.executor import Executor
from spice_engine.pr.diff_split import SplitRules, split_diff
from spice_engine.pr.models import PullRequest
from spice_engine.runs.planner import Unplanned, plan_jobs
from spice_engine.runs.session import Status
from spice_engine.runs.validator import validate
from spice_engine.strength.batch import run_seconds
from spice_engine.strength.catching import TestWriter
from spice_engine.strength.config import StrengthConfig
from spice_engine.strength.measure import measure
from spice_engine.strength.result import TestStrength
from spice_engine.validate.clone_cache import clone_from_github
from spice_engine.validate.gitwork import GitError

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
    ctx: RunContext,
    pr: PullData,
    engine_pr: PullRequest,
    rules: SplitRules,
    warnings: list[str],
    writer: TestWriter | None = None,
) -> TestStrength | None:
    """The PR's test strength (None when not executed; a warning says why if it was asked).
    `writer`: the PR pipeline's model, asked for a test that catches the top survivors."""
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
    row: dict[str, object] = {
        "instance_id": f"{repo.replace('/', '__')}-{pr.number}",
        "repo": repo,
        "base_commit": pr.base_sha,
        "patch": split.gold,
        "test_patch": split.test,
        "problem_statement": f"{pr.title}\n{pr.body}",
        "created_at": "",
    }
    with tempfile.TemporaryDirectory(dir=data, prefix="pr-strength-") as scratch:
        result = _measured(
            row, git_dir, ctx.deps.executor, Path(scratch), settings, secrets, writer
        )
    # The engine cut its detail where the App's secrets are unknown: redacted, ends as cuts.
    result = result.model_copy(update={"detail": redact(result.detail, secrets, cut_edges=True)})
    if result.status in KEPT:
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(result.model_dump_json())
    else:  # an environment that failed to build, a timeout: the next event tries again
        why = redacted_excerpt(result.detail, head=300, secrets=secrets)
        warnings.append(f"tests executed but not measured: {result.status} {why}")
    log.info("test strength %s#%d %s: %s", repo, pr.number, pr.head_sha[:12], result.status)
    return result


def _measured(
    row: dict[str, object],
    git_dir: Path,
    executor: Executor,
    scratch: Path,
    settings: Settings,
    secrets: tuple[str, ...],
    writer: TestWriter | None = None,
) -> TestStrength:
    """The pull request validated (its lists computed), then measured in what time is left."""
    started = time.monotonic()
    budget = settings.execute_budget_s
    repo = str(row["repo"])
    planned = plan_jobs([row], {repo: git_dir}, timeout_s=budget / 2)[str(row["instance_id"])]
    if isinstance(planned, Unplanned):
        return TestStrength(status=Status.ERROR, detail=f"no environment: {planned.detail}")
    job = planned
    validated = validate(job, executor, scratch)
    status = validated.validation.status
    if status != Status.VALID:
        kept = Status.NO_FAIL_TO_PASS if status == Status.NO_FAIL_TO_PASS else Status.ERROR
        return TestStrength(
            status=kept,
            detail=f"validation: {status}: "
            + redacted_excerpt(validated.validation.detail, tail=300, secrets=secrets),
        )
    left = max(10.0, budget - (time.monotonic() - started))
    lists = {"FAIL_TO_PASS": validated.fail_to_pass, "PASS_TO_PASS": validated.pass_to_pass}
    job = job.model_copy(update={"instance": row | lists, "timeout_s": left})
    runs = validated.validation.durations
    config = StrengthConfig(
        max_mutants=20, budget_s=left, validation_s=run_seconds(runs) if "total" in runs else None
    )
    measured = measure(job, executor, scratch, config, writer=writer)
    offline = validated.validation.tests.needs_network if validated.validation.tests else []
    return measured.model_copy(update={"needs_network": len(offline)})

"""PR pipeline: split, link issues, build context, vote on test adequacy and difficulty."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from spice_engine import __version__
from spice_engine.aggregation import aggregate_dimension, aggregate_guests
from spice_engine.answers import TestAdequacyAnswer
from spice_engine.dimensions import answer_model, dimension, voted_separately
from spice_engine.errors import InputError, NoValidVotesError
from spice_engine.llm.voting import CostBudget, collect_votes
from spice_engine.models import DimensionResult, Issue, Usage, Vote
from spice_engine.pr.diff_split import SplitDiff, SplitRules, rules_for, split_diff
from spice_engine.pr.linked_issues import IssueRef, LinkedIssues, find_linked_issues
from spice_engine.pr.models import (
    ContextReport,
    FileEntry,
    PRAssessment,
    PROptions,
    PullRequest,
)
from spice_engine.pr.prompt_fit import FittedPrompts, PromptParts, fit
from spice_engine.pr.repo_context import RepoContextBuilder
from spice_engine.pr.tokens import count_tokens, truncate_to_tokens
from spice_engine.pr_evidence import pipeline_evidence
from spice_engine.prompts import latest_version
from spice_engine.protocols import ChatModel
from spice_engine.strength.result import TestStrength
from spice_engine.strength.summary import survivors_text
from spice_engine.text_cleaning import clean_issue_text

JudgedAgainst = Literal["linked_issues", "pr_description"]


@dataclass
class PreparedPR:
    """A PR ready to vote on: its split, links, fitted prompts and context report."""

    split: SplitDiff
    linked: LinkedIssues
    judged_against: JudgedAgainst
    prompts: FittedPrompts
    report: ContextReport
    evidence: dict[str, object] = field(default_factory=dict)
    """What goes into the result: the caller's evidence, or the computed PR evidence."""
    strength: TestStrength | None = None
    """The tests run against mutants of the fix (when the caller executed them)."""


def _task_text(pr: PullRequest, max_tokens: int) -> tuple[str, JudgedAgainst]:
    issues = [i for i in pr.issues if i.title.strip() or i.body.strip()]
    source = issues or [Issue(title=pr.title, body=pr.body)]
    blocks = []
    for issue in source:
        head = f"Issue #{issue.number}: " if issue.number else ""
        body = clean_issue_text(issue.body, max_tokens * 6).text
        blocks.append(f"{head}{issue.title.strip()}\n\n{body}".strip())
    text = "\n\n---\n\n".join(blocks)
    text = truncate_to_tokens(text, max_tokens, "[... task statement cut: too long ...]")
    return text, "linked_issues" if issues else "pr_description"


def judged_issues(pr: PullRequest) -> LinkedIssues:
    """The closing references in the PR's text; when the caller fetched the linked issues
    (keywords and GitHub's own links, missing ones dropped), exactly those, in its order."""
    found = find_linked_issues(pr.repo or "", pr.title, pr.body, pr.commit_messages)
    given = [i.number for i in pr.issues if i.number is not None]
    if not given:
        return found
    by_number = {ref.number: ref for ref in found.same_repo}
    same_repo = [
        by_number.get(n) or IssueRef(repo=pr.repo or "", number=n, source="github") for n in given
    ]
    return LinkedIssues(same_repo=same_repo, cross_repo=found.cross_repo)


def prepare_pr(
    pr: PullRequest,
    options: PROptions | None = None,
    repo_path: Path | None = None,
    evidence: dict[str, object] | None = None,
    builder: RepoContextBuilder | None = None,
    split_rules: SplitRules | None = None,
    strength: TestStrength | None = None,
) -> PreparedPR:
    """Everything up to the model call; `repo_path` is a checkout at the PR's base, if any;
    `strength` (the PR's tests run against mutants of its fix) gives the prompt survivors."""
    opts = options or PROptions()
    split = split_diff(pr.diff, split_rules or rules_for(pr.repo, opts.split_overrides))
    linked = judged_issues(pr)
    task, judged_against = _task_text(pr, opts.max_issue_tokens)
    evidence_text = json.dumps(evidence, indent=1, default=str) if evidence else ""
    if evidence is None:  # deterministic flags and difficulty prior (spice_engine.pr_evidence)
        evidence, evidence_text = pipeline_evidence(split.gold, split.test, task, repo_path)
    parts = PromptParts(
        task=task,
        gold_patch=split.gold,
        test_patch=split.test,
        judged_against=judged_against,
        context_mode="repository" if repo_path else "patches_only",
        evidence=evidence_text,
        survivors=survivors_text(strength),
    )
    report = ContextReport(mode="patches_only", cap=opts.context.max_prompt_tokens)
    if repo_path is not None:
        ctx = (builder or RepoContextBuilder(opts.context)).build(
            repo_path, split, pr.base_sha or ""
        )
        parts.repo_map, parts.files = ctx.repo_map, ctx.files
        report.mode, report.notes, report.build_seconds = "repository", ctx.notes, ctx.seconds
    else:
        report.notes.append("no checkout: context is the task statement and both patches only")
    if not split.test:
        report.notes.append("the PR changes no tests: test adequacy is not voted")
    dims = [d.key for d in voted_separately("pull_request") if d.key != "tests" or split.test]
    fitted = fit(parts, dims, report.cap, opts.prompt_version)
    if max(fitted.tokens.values()) > report.cap:
        raise InputError(f"cannot fit the PR prompt under {report.cap} tokens; raise the cap")
    report.prompt_tokens = fitted.tokens
    report.trimmed = list(parts.trimmed)
    report.repo_map_tokens = count_tokens(parts.repo_map) if parts.repo_map else 0
    report.files_full = [f.path for f in parts.files if not f.excerpt]
    report.files_excerpted = [f.path for f in parts.files if f.excerpt]
    return PreparedPR(split, linked, judged_against, fitted, report, dict(evidence or {}), strength)


def _vote(
    dim: str, prepared: PreparedPR, model: ChatModel, opts: PROptions, budget: CostBudget
) -> tuple[DimensionResult, list[BaseModel], Usage]:
    spec = dimension(dim)
    messages = prepared.prompts.messages[dim]
    schema = answer_model(spec)
    batch = collect_votes(model, messages, schema, opts.votes, opts.seed, budget=budget)
    answers: list[BaseModel] = list(batch.answers)
    votes = [
        Vote(
            score=spec.vote_of(a),
            rationale=str(getattr(a, "rationale", "")),
            extra={"counter_example": a.counter_example}
            if isinstance(a, TestAdequacyAnswer)
            else {},
        )
        for a in answers
    ]
    result = aggregate_dimension(dim, votes, opts.votes, batch.errors)
    if result.score is None:
        raise NoValidVotesError(dim, batch.errors, batch.capped)
    return result, answers, batch.usage


def pr_input_hash(pr: PullRequest, model: str, opts: PROptions) -> str:
    """Identity of a PR labelling input, known before the checkout and the votes: its text,
    diff, linked issues, the prompt versions, model, votes and engine version."""
    prompts = [
        [d.key, d.prompt_id, opts.prompt_version or latest_version(str(d.prompt_id))]
        for d in voted_separately("pull_request")
    ]
    issues = [[i.number, i.title, i.body] for i in pr.issues]
    parts = [pr.repo, pr.title, pr.body, pr.diff, issues, prompts, model, opts.votes, __version__]
    payload = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _counter_examples(answers: list[BaseModel], final: int | None) -> list[str]:
    tests = [a for a in answers if isinstance(a, TestAdequacyAnswer)]
    ordered = sorted(tests, key=lambda a: a.score != final)
    seen: dict[str, str] = {}
    for a in ordered:
        if a.score > 0 and a.counter_example:
            seen.setdefault(a.counter_example.strip().lower(), a.counter_example.strip())
    return list(seen.values())


def assess_pr(
    pr: PullRequest,
    model: ChatModel,
    options: PROptions | None = None,
    repo_path: Path | None = None,
    evidence: dict[str, object] | None = None,
    builder: RepoContextBuilder | None = None,
    split_rules: SplitRules | None = None,
    strength: TestStrength | None = None,
) -> PRAssessment:
    """Label a PR's test adequacy (with counter-examples) and difficulty with k votes each."""
    opts = options or PROptions()
    prepared = prepare_pr(pr, opts, repo_path, evidence, builder, split_rules, strength)
    return assess_prepared(pr, prepared, model, opts)


def assess_prepared(
    pr: PullRequest, prepared: PreparedPR, model: ChatModel, options: PROptions | None = None
) -> PRAssessment:
    """The votes on a prepared PR: the checkout is no longer needed (its lock can go)."""
    opts = options or PROptions()
    results: dict[str, DimensionResult] = {}
    usage: dict[str, Usage] = {}
    counter: list[str] = []
    budget = CostBudget(model, opts.cost_cap_usd, opts.allow_unpriced)  # one cap per PR
    for dim in prepared.prompts.messages:
        results[dim], answers, usage[dim] = _vote(dim, prepared, model, opts, budget)
        results |= aggregate_guests(dimension(dim), answers, opts.votes)
        if dim == "tests":
            counter = _counter_examples(answers, results[dim].score)
    digest = pr_input_hash(pr, model.name, opts)
    extra = {k: r for k, r in results.items() if k not in ("tests", "difficulty")}
    return PRAssessment(
        repo=pr.repo,
        number=pr.number,
        title=pr.title,
        base_sha=pr.base_sha,
        linked_issues=prepared.linked,
        judged_against=prepared.judged_against,
        files=[FileEntry(path=f.path, kind=f.kind) for f in prepared.split.files],
        tests=results.get("tests"),
        difficulty=results["difficulty"],
        counter_examples=counter,
        context=prepared.report,
        model=model.name,
        prompts=list(prepared.prompts.refs.values()),
        engine_version=__version__,
        usage=sum(usage.values(), Usage()),
        usage_by_dimension=usage,
        input_hash=digest,
        evidence=prepared.evidence,
        dimensions=extra,
        notes=list(prepared.report.notes),
        test_strength=prepared.strength,
    )


def pr_from_instance(instance: dict[str, Any]) -> PullRequest:
    """A SWE-bench task instance as a PR: the problem statement is the linked issue."""
    patch, tests = str(instance.get("patch") or ""), str(instance.get("test_patch") or "")
    if not patch.strip():
        raise InputError(f"instance {instance.get('instance_id', '?')} has no patch")
    statement = str(instance.get("problem_statement") or "")
    title, _, body = statement.partition("\n")
    iid = str(instance.get("instance_id", ""))
    number = int(iid.rpartition("-")[2]) if iid.rpartition("-")[2].isdigit() else None
    return PullRequest(
        repo=instance.get("repo"),
        number=number,
        diff=patch + tests,
        base_sha=instance.get("base_commit") or None,
        issues=[Issue(title=title.strip(), body=body, repo=instance.get("repo"))],
    )


def assess_instance(
    instance: dict[str, Any],
    model: ChatModel,
    options: PROptions | None = None,
    repo_path: Path | None = None,
    evidence: dict[str, object] | None = None,
    builder: RepoContextBuilder | None = None,
) -> PRAssessment:
    """Label a SWE-bench instance; without `repo_path` the context is issue + patches only."""
    return assess_pr(pr_from_instance(instance), model, options, repo_path, evidence, builder)

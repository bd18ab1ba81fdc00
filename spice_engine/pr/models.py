"""Inputs and results of the pull-request pipeline."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from spice_engine.answers import DifficultyAnswer, TestAdequacyAnswer
from spice_engine.dimensions import Subject
from spice_engine.models import Assessment, DimensionResult, Issue, PromptRef, Usage
from spice_engine.pr.diff_split import SplitRules
from spice_engine.pr.linked_issues import LinkedIssues
from spice_engine.pr.repo_context import ContextOptions
from spice_engine.strength.result import TestStrength


class PullRequest(BaseModel):
    """A PR as the engine sees it: text, diff and the commit it is based on."""

    repo: str | None = None
    """`owner/name`, when known (needed to tell same- from cross-repository issue links)."""
    number: int | None = None
    title: str = ""
    body: str = ""
    diff: str
    """The PR's full unified diff (gold + tests)."""
    base_sha: str | None = None
    commit_messages: list[str] = Field(default_factory=list)
    issues: list[Issue] = Field(default_factory=list)
    """Texts of the linked issues, fetched by the caller; empty = judge against title/body."""


class PROptions(BaseModel):
    """Knobs of the PR pipeline that are not about the model."""

    votes: int = Field(default=3, ge=1, le=15)
    seed: int = 0
    cost_cap_usd: float | None = None
    """For the whole PR: test adequacy and difficulty together."""
    allow_unpriced: bool = False
    """With a cap, let a model of unknown price vote past its first request."""
    context: ContextOptions = Field(default_factory=ContextOptions)
    max_issue_tokens: int = Field(default=6_000, ge=200)
    """The linked issues' text is cut to this many tokens (visible marker) before fitting."""
    prompt_version: str | None = None
    split_overrides: dict[str, SplitRules] = Field(default_factory=dict)
    """Per-repository (`owner/name`) globs that override the built-in test/source rules."""


class ContextReport(BaseModel):
    """How the prompt's context was built and what had to give way to the token cap."""

    mode: Literal["repository", "patches_only"]
    """`patches_only`: no checkout, so the context is the issue and both patches."""
    prompt_tokens: dict[str, int] = Field(default_factory=dict)
    """Input tokens per dimension (tiktoken o200k count of the rendered messages)."""
    cap: int
    repo_map_tokens: int = 0
    files_full: list[str] = Field(default_factory=list)
    files_excerpted: list[str] = Field(default_factory=list)
    trimmed: list[str] = Field(default_factory=list)
    """Every cut made to fit the cap, in order: never silent."""
    notes: list[str] = Field(default_factory=list)
    build_seconds: float = 0.0


class FileEntry(BaseModel):
    path: str
    kind: Literal["test", "source"]


class PRAssessment(Assessment):
    """Result of the PR pipeline."""

    subject: ClassVar[Subject] = "pull_request"
    kind: Literal["pull_request"] = "pull_request"
    repo: str | None
    number: int | None
    title: str = ""
    """The PR's title, so a stored result names what it judged."""
    base_sha: str | None
    linked_issues: LinkedIssues
    judged_against: Literal["linked_issues", "pr_description"]
    files: list[FileEntry]
    tests: DimensionResult | None
    """None when the PR changes no tests (nothing to judge)."""
    difficulty: DimensionResult
    counter_examples: list[str] = Field(default_factory=list)
    context: ContextReport
    prompts: list[PromptRef]
    usage_by_dimension: dict[str, Usage] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    test_strength: TestStrength | None = None
    """The PR's tests run against mutants of its fix (None: not executed)."""

    def fixed_results(self) -> list[DimensionResult | None]:
        return [self.tests, self.difficulty]

    def prompt_refs(self) -> list[PromptRef]:
        return self.prompts


__all__ = ["DifficultyAnswer", "PRAssessment", "PROptions", "PullRequest", "TestAdequacyAnswer"]

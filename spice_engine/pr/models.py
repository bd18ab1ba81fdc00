"""Inputs and results of the pull-request pipeline."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from spice_engine.models import DimensionResult, Issue, PromptRef, Usage
from spice_engine.pr.diff_split import SplitRules
from spice_engine.pr.linked_issues import LinkedIssues
from spice_engine.pr.repo_context import ContextOptions


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


class TestAdequacyAnswer(BaseModel):
    """One run's test-adequacy answer (RUBRICS.md §3)."""

    __test__ = False
    model_config = ConfigDict(extra="forbid")

    rationale: str
    score: Literal[0, 1, 2, 3]
    counter_example: str | None
    """A reasonable patch the tests would wrongly reject, or a wrong one they would accept."""

    @model_validator(mode="after")
    def _counter_example_backs_a_score_above_zero(self) -> TestAdequacyAnswer:
        if self.score > 0 and not (self.counter_example or "").strip():
            raise ValueError(
                "counter_example is required when score is above 0: describe a reasonable "
                "patch the tests would wrongly reject, or a wrong patch they would accept"
            )
        return self


class DifficultyAnswer(BaseModel):
    """One run's difficulty answer (RUBRICS.md §4)."""

    model_config = ConfigDict(extra="forbid")

    rationale: str
    score: Literal[0, 1, 2, 3]


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


class PRAssessment(BaseModel):
    """Result of the PR pipeline."""

    kind: Literal["pull_request"] = "pull_request"
    repo: str | None
    number: int | None
    base_sha: str | None
    linked_issues: LinkedIssues
    judged_against: Literal["linked_issues", "pr_description"]
    files: list[FileEntry]
    tests: DimensionResult | None
    """None when the PR changes no tests (nothing to judge)."""
    difficulty: DimensionResult
    counter_examples: list[str] = Field(default_factory=list)
    context: ContextReport
    model: str
    prompts: list[PromptRef]
    engine_version: str
    usage: Usage
    usage_by_dimension: dict[str, Usage] = Field(default_factory=dict)
    input_hash: str
    evidence: dict[str, object] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

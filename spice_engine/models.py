"""Plain pydantic inputs and results shared by every pipeline."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator


class Issue(BaseModel):
    """An issue as the engine sees it: text plus optional provenance."""

    title: str = ""
    body: str = ""
    repo: str | None = None
    """`owner/name`, when known."""
    number: int | None = None
    url: str | None = None


class Clarity(IntEnum):
    """RUBRICS.md §1 issue clarity (SWE-bench Verified `underspecified`)."""

    WELL_SPECIFIED = 0
    MINOR_AMBIGUITY = 1
    SIGNIFICANT_AMBIGUITY = 2
    POORLY_SPECIFIED = 3


class TestAdequacy(IntEnum):
    """RUBRICS.md §3 test coverage adequacy (SWE-bench Verified `false_negative`)."""

    __test__ = False  # not a pytest class

    PERFECT = 0
    GOOD = 1
    LIMITED = 2
    POORLY_SCOPED = 3


class Difficulty(IntEnum):
    """RUBRICS.md §4 time buckets."""

    UNDER_15_MIN = 0
    UP_TO_1_HOUR = 1
    UP_TO_4_HOURS = 2
    OVER_4_HOURS = 3


class CandidateSolution(StrEnum):
    """RUBRICS.md §1 candidate solution present in the issue."""

    NONE = "none"
    PARTIAL = "partial"
    COMPLETE = "complete"
    EXACT_PATCH = "exact_patch"


CANDIDATE_ORDER = [
    CandidateSolution.NONE,
    CandidateSolution.PARTIAL,
    CandidateSolution.COMPLETE,
    CandidateSolution.EXACT_PATCH,
]


class Agreement(StrEnum):
    """How the valid votes of one dimension relate to each other."""

    UNANIMOUS = "unanimous"
    MAJORITY = "majority"
    SPLIT = "split"


class Usage(BaseModel):
    """Tokens and cost as billed by the provider (input counted once per request)."""

    input: int = 0
    output: int = 0
    cost_usd: float = 0.0
    """Written as null when not `cost_known`: an unknown cost is not a free one."""
    cost_known: bool = True
    """False when the model is not in litellm's price table."""
    requests: int = 0

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _unknown_reads_as_zero(cls, value: object) -> object:
        return 0.0 if value is None else value

    @field_serializer("cost_usd")
    def _unknown_writes_as_null(self, value: float) -> float | None:
        return value if self.cost_known else None

    def cost_text(self, digits: int = 5) -> str:
        """The cost as people read it, the same in every command and comment."""
        return f"${self.cost_usd:.{digits}f}" if self.cost_known else "cost unknown"

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cost_usd=self.cost_usd + other.cost_usd,
            cost_known=self.cost_known and other.cost_known,
            requests=self.requests + other.requests,
        )


class Vote(BaseModel):
    """One model run's answer for one dimension."""

    score: int
    rationale: str = ""
    extra: dict[str, object] = Field(default_factory=dict)
    """Dimension-specific fields of this run (e.g. candidate solution, counter-example)."""


class DimensionResult(BaseModel):
    """The aggregated label of one dimension with every vote behind it."""

    dimension: str
    score: int | None
    """Final label; None when there was no valid vote."""
    votes: list[Vote]
    valid_votes: int
    requested_votes: int
    agreement: Agreement | None
    controversial: bool
    """Votes straddle the binary boundary ({0,1} vs {2,3})."""
    max_score: int | None = None
    """Worst vote: comparable with SWE-bench Verified's max-of-3 human ensemble."""
    errors: list[str] = Field(default_factory=list)
    """Why votes were dropped (format errors, timeouts)."""


class PromptRef(BaseModel):
    """Which prompt template produced a result."""

    id: str
    version: str


class IssueAssessment(BaseModel):
    """Result of the issue pipeline."""

    model_config = ConfigDict(use_enum_values=False)

    kind: Literal["issue"] = "issue"
    issue: Issue
    clarity: DimensionResult
    candidate_solution: CandidateSolution | None
    candidate_misleading: bool = False
    questions: list[str] = Field(default_factory=list)
    """Questions to the reporter, when the issue is underspecified."""
    model: str
    prompt: PromptRef
    engine_version: str
    usage: Usage
    input_hash: str
    """Hash of the cleaned input, the prompt version and the model: equal hashes need no re-vote."""
    truncated: bool = False
    nothing_to_assess: bool = False
    evidence: dict[str, object] = Field(default_factory=dict)
    """Deterministic signals (RUBRICS.md §2), when computed."""

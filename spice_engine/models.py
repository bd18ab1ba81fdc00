"""Plain pydantic inputs and results shared by every pipeline."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from spice_engine.answers import CandidateSolution
from spice_engine.dimensions import REGISTRY, Subject


class Issue(BaseModel):
    """An issue as the engine sees it: text plus optional provenance."""

    title: str = ""
    body: str = ""
    repo: str | None = None
    """`owner/name`, when known."""
    number: int | None = None
    url: str | None = None


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


class Assessment(BaseModel):
    """What every pipeline returns: its dimension results and how they were reached."""

    subject: ClassVar[Subject]

    model: str
    engine_version: str
    usage: Usage
    input_hash: str
    """Hash of the input as asked (text, prompt versions, model, votes, engine version): equal
    hashes need no re-vote. The App keys its comment state and its store on it."""
    evidence: dict[str, object] = Field(default_factory=dict)
    """Deterministic signals, when computed."""
    dimensions: dict[str, DimensionResult] = Field(default_factory=dict)
    """Dimensions beyond the pipeline's fixed fields (spice_engine.dimensions), by key."""

    def fixed_results(self) -> list[DimensionResult | None]:
        return []

    def results(self) -> dict[str, DimensionResult]:
        """Every dimension result of this assessment, by dimension key, in registry order."""
        found = {r.dimension: r for r in self.fixed_results() if r is not None}
        found |= self.dimensions
        return {d.key: found[d.key] for d in REGISTRY if d.key in found}

    def prompt_refs(self) -> list[PromptRef]:
        return []


class IssueAssessment(Assessment):
    """Result of the issue pipeline."""

    model_config = ConfigDict(use_enum_values=False)

    subject: ClassVar[Subject] = "issue"
    kind: Literal["issue"] = "issue"
    issue: Issue
    clarity: DimensionResult
    candidate_solution: CandidateSolution | None
    candidate_misleading: bool = False
    questions: list[str] = Field(default_factory=list)
    """Questions to the reporter, when the issue is underspecified."""
    prompt: PromptRef
    """The clarity prompt."""
    prompts: list[PromptRef] = Field(default_factory=list)
    """Every prompt voted on (the clarity prompt first)."""
    truncated: bool = False
    nothing_to_assess: bool = False

    def fixed_results(self) -> list[DimensionResult | None]:
        return [self.clarity]

    def prompt_refs(self) -> list[PromptRef]:
        return self.prompts or [self.prompt]

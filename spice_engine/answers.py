"""What one model run must return, per prompt: validated before it counts as a vote."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, create_model, model_validator


class CandidateSolution(StrEnum):
    """RUBRICS.md §1 candidate solution present in the issue, in rank order."""

    NONE = "none"
    PARTIAL = "partial"
    COMPLETE = "complete"
    EXACT_PATCH = "exact_patch"


class ClarityAnswer(BaseModel):
    """One run's issue answer: clarity plus the candidate solution (RUBRICS.md §1)."""

    model_config = ConfigDict(extra="forbid")

    rationale: str
    score: Literal[0, 1, 2, 3]
    candidate_solution: CandidateSolution
    candidate_misleading: bool
    questions: list[str]


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


@cache
def yes_no_answer(field: str) -> type[BaseModel]:
    """`{"rationale": str, <field>: bool}`: the answer of any yes/no dimension."""
    fields: dict[str, object] = {"rationale": (str, ...), field: (bool, ...)}
    model: type[BaseModel] = create_model(
        f"YesNoAnswer_{field}",
        __config__=ConfigDict(extra="forbid"),
        **fields,  # type: ignore[call-overload]
    )
    return model

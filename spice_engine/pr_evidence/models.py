"""Pydantic results of the pull-request evidence extractor: flags with evidence and a prior."""

from __future__ import annotations

from pydantic import BaseModel, Field


class EvidenceItem(BaseModel):
    """One concrete fact behind a flag: what was found and where."""

    name: str
    """The identifier or message the fact is about."""
    file: str
    line: int | None = None
    """Line number in the post-image of `file` (the test file for test-side facts)."""
    detail: str
    """One sentence a reviewer can check, e.g. "tests call `foo(strict=True)` ..."."""


class Flag(BaseModel):
    """A named deterministic finding about the PR's tests, with its evidence."""

    name: str
    counts_for_tests: bool
    """True for the precise flags that make up "any flag fired" (see flags.COUNTING_FLAGS)."""
    summary: str
    evidence: list[EvidenceItem] = Field(default_factory=list)


class DifficultyPrior(BaseModel):
    """A 0-3 difficulty bucket predicted from the gold patch's size and shape."""

    score: int
    """0 <15 min, 1 15 min-1 h, 2 1-4 h, 3 >4 h (RUBRICS.md §4)."""
    points: float
    """The weighted sum the bucket is cut from."""
    features: dict[str, float]


class TestStats(BaseModel):
    """Shape of the test patch: what the PR adds or changes in its tests."""

    __test__ = False  # not a pytest class

    test_files: int = 0
    tests_added: int = 0
    """Test functions/methods whose `def` line is added."""
    tests_modified: int = 0
    """Existing test functions whose body the test patch changes."""
    parametrized_cases: int = 0
    """Cases added to `pytest.mark.parametrize` lists or subTest loops (approximate)."""


class PrEvidence(BaseModel):
    """Everything the extractor found for one PR."""

    flags: list[Flag] = Field(default_factory=list)
    difficulty_prior: DifficultyPrior
    test_stats: TestStats = Field(default_factory=TestStats)
    introduced_names: list[str] = Field(default_factory=list)
    introduced_messages: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """Where the extractor had to cut work short on a very large PR."""

    @property
    def tests_flag(self) -> bool:
        """Any precise flag fired: the deterministic "tests are inadequate" baseline."""
        return any(flag.counts_for_tests for flag in self.flags)

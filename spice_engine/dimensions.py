"""The label dimensions, each declared once: its scale, answer, labels, title and columns.

Everything that knows a dimension (labels on GitHub, the comment, the CLI summaries, the
evaluation, the export, the prompts voted on) loops over `REGISTRY`. Adding a yes/no label on
issues is one prompt file and one `yes_no(...)` entry here (docs/adding-a-dimension.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

from spice_engine.answers import (
    CandidateSolution,
    ClarityAnswer,
    DifficultyAnswer,
    TestAdequacyAnswer,
    yes_no_answer,
)

Subject = Literal["issue", "pull_request"]


@dataclass(frozen=True)
class Level:
    """One value of a scale: its one name (CLI, comment, label) and its label, if any."""

    name: str
    label: str | None
    """The GitHub label of this value (before the repository's prefix); None: no label."""
    color: str = "ededed"
    description: str = ""


@dataclass(frozen=True)
class Dimension:
    key: str
    """`DimensionResult.dimension`, the JSON key, the export and evaluation column."""
    title: str
    """How the comment and the CLI call it."""
    subject: Subject
    levels: tuple[Level, ...]
    """Score i is `levels[i]`."""
    answer: type[BaseModel]
    """What one run returns for this dimension's prompt."""
    answer_field: str = "score"
    """The field of `answer` that holds the vote (an int, a rank enum or a bool)."""
    prompt_id: str | None = None
    """Its own prompt (voted separately); None when another dimension's prompt asks for it."""
    asked_in: str | None = None
    """The key of the dimension whose prompt asks for it (its answer gains `answer_field`)."""
    question: str = ""
    """For a yes/no asked in another prompt: the field's description in the answer schema."""
    boundary: int = 2
    """Votes on both sides of it make the result controversial (a person should look)."""
    gold_column: str = ""
    """Column of a gold-label CSV (SWE-bench Verified's names); default: the key."""
    gold_values: dict[str, int] = field(default_factory=dict)
    """Text values of the gold column, when it is not numeric."""
    aliases: tuple[str, ...] = ()
    """Other keys a predictions file may use for this dimension."""
    evaluated: bool = True
    """Scored against gold labels by `spice eval` (a derived summary is not)."""
    in_comment: bool = True
    """A row of its own in the sticky comment."""
    exported: bool = True
    """A column of the harvest export's `spice` block."""
    triage: bool = True
    """Controversial votes on it ask for a person (`triage: needs human`)."""
    suppressed_by: str | None = None
    """A boolean field of the assessment that, when true, withholds this dimension's label."""

    @property
    def family(self) -> str:
        """The label family: at most one of its labels is on an item."""
        return self.key

    @property
    def column(self) -> str:
        return self.gold_column or self.key

    def name_of(self, score: int | None) -> str:
        return (
            self.levels[score].name
            if score is not None and 0 <= score < len(self.levels)
            else "no label"
        )

    def label_of(self, score: int | None) -> str | None:
        """The label of a score: only an integer picks it, never model text."""
        if score is None or not 0 <= score < len(self.levels):
            return None
        return self.levels[score].label

    def vote_of(self, answer: BaseModel) -> int:
        """One run's vote as a score: a bool is 0/1, a rank enum its place on the scale."""
        value = getattr(answer, self.answer_field)
        if isinstance(value, bool | int):
            return int(value)
        return [level.name for level in self.levels].index(str(value))

    def label_levels(self) -> list[Level]:
        return [level for level in self.levels if level.label is not None]


def scale(
    family: str, names: tuple[str, ...], colors: tuple[str, ...], what: str
) -> tuple[Level, ...]:
    """A 0-3 scale whose every value carries a `family: name` label."""
    return tuple(
        Level(name, f"{family}: {name}", color, f"SPICE: {what} {i}")
        for i, (name, color) in enumerate(zip(names, colors, strict=True))
    )


def yes_no(
    key: str,
    title: str,
    label: str,
    color: str,
    question: str,
    subject: Subject = "issue",
    asked_in: str | None = "clarity",
) -> Dimension:
    """A yes/no dimension: only "yes" carries a label. It is asked inside the `asked_in`
    dimension's prompt (one more answer field, no more model calls), or, with
    `asked_in=None`, on a prompt of its own, `prompts/<key>/`."""
    return Dimension(
        key=key,
        title=title,
        subject=subject,
        levels=(Level("no", None), Level("yes", label, color, f"SPICE: {question}")),
        answer=yes_no_answer(key),
        answer_field=key,
        prompt_id=None if asked_in else key,
        asked_in=asked_in,
        question=question,
        boundary=1,
    )


RAMP = ("0e8a16", "c2e0c6", "fbca04", "d93f0b")
TIME_RAMP = ("bfdadc", "7fc8d0", "3f9fb0", "005f73")

CLARITY = Dimension(
    key="clarity",
    title="Clarity",
    subject="issue",
    levels=scale(
        "clarity", ("well-specified", "minor-gaps", "ambiguous", "underspecified"), RAMP, "clarity"
    ),
    answer=ClarityAnswer,
    prompt_id="issue_clarity",
    gold_column="underspecified",
    aliases=("underspecified", "issue_clarity"),
)
CANDIDATE = Dimension(
    key="candidate_solution",
    title="Candidate solution",
    subject="issue",
    levels=(
        Level(CandidateSolution.NONE.value, None),
        Level(CandidateSolution.PARTIAL.value, None),
        *(
            Level(
                c.value,
                "has candidate solution",
                "1d76db",
                "SPICE: the issue proposes a complete fix or a patch",
            )
            for c in (CandidateSolution.COMPLETE, CandidateSolution.EXACT_PATCH)
        ),
    ),
    answer=ClarityAnswer,
    answer_field="candidate_solution",
    asked_in="clarity",
    evaluated=False,
    in_comment=False,
    exported=False,
    triage=False,
    suppressed_by="candidate_misleading",
)
TESTS = Dimension(
    key="tests",
    title="Test adequacy",
    subject="pull_request",
    levels=scale("tests", ("complete", "good", "limited", "misaligned"), RAMP, "tests"),
    answer=TestAdequacyAnswer,
    prompt_id="test_adequacy",
    gold_column="false_negative",
    aliases=("test_adequacy", "false_negative"),
)
DIFFICULTY = Dimension(
    key="difficulty",
    title="Difficulty",
    subject="pull_request",
    levels=tuple(
        Level(name, f"difficulty: {name}", color, f"SPICE: {what}")
        for name, color, what in zip(
            ("<15m", "15m-1h", "1-4h", ">4h"),
            TIME_RAMP,
            ("under 15 minutes", "15 minutes to 1 hour", "1 to 4 hours", "over 4 hours"),
            strict=True,
        )
    ),
    answer=DifficultyAnswer,
    prompt_id="difficulty",
    gold_values={"<15 min fix": 0, "15 min - 1 hour": 1, "1-4 hours": 2, ">4 hours": 3},
)

REGISTRY: tuple[Dimension, ...] = (CLARITY, CANDIDATE, TESTS, DIFFICULTY)
"""Every dimension, in the order the comment, the CLI and the export show them."""

NEEDS_HUMAN = Level(
    "needs human",
    "triage: needs human",
    "b60205",
    "SPICE: the votes disagree across the good/bad boundary",
)
"""Not a dimension: put on when any dimension's votes are controversial."""
TRIAGE_FAMILY = "triage"


def dimension(key: str) -> Dimension:
    """The dimension of a key or alias (`test_adequacy` is `tests`)."""
    for dim in REGISTRY:
        if key == dim.key or key in dim.aliases:
            return dim
    raise KeyError(f"unknown dimension {key!r}; known: {', '.join(d.key for d in REGISTRY)}")


def dimensions_of(subject: Subject) -> list[Dimension]:
    return [d for d in REGISTRY if d.subject == subject]


def voted_separately(subject: Subject) -> list[Dimension]:
    """The dimensions of a subject that have a prompt of their own."""
    return [d for d in dimensions_of(subject) if d.prompt_id is not None]


def scored(dim: Dimension) -> bool:
    """A dimension `spice eval` scores against a gold column."""
    return dim.evaluated


def guests(host: Dimension) -> list[Dimension]:
    """The dimensions asked inside `host`'s prompt, in registry order."""
    return [d for d in REGISTRY if d.asked_in == host.key]


def answer_model(host: Dimension) -> type[BaseModel]:
    """`host.answer` plus a yes/no field per guest it does not have already. A missing field is
    "no": an older prompt version never asks for it."""
    return _answer_model(host.key)


@cache
def _answer_model(key: str) -> type[BaseModel]:
    host = dimension(key)
    extra: dict[str, object] = {
        g.answer_field: (bool, Field(default=False, description=g.question))
        for g in guests(host)
        if g.answer_field not in host.answer.model_fields
    }
    if not extra:
        return host.answer
    model: type[BaseModel] = create_model(
        host.answer.__name__,
        __base__=host.answer,
        **extra,  # type: ignore[call-overload]
    )
    return model


def label_families() -> dict[str, list[Level]]:
    """Family -> its labelled levels (the allowlist of labels we may add or remove)."""
    families = {d.family: d.label_levels() for d in REGISTRY}
    families[TRIAGE_FAMILY] = [NEEDS_HUMAN]
    return families

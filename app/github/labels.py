"""Our label allowlist (one Enum per family) and idempotent add/remove of only our own labels."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel

from app.github.client import GitHubRepo, LabelEvent


class LabelSpec(BaseModel):
    suffix: str
    color: str
    description: str


class ClarityLabel(Enum):
    """RUBRICS.md §1, in score order 0-3."""

    WELL_SPECIFIED = LabelSpec(
        suffix="clarity: well-specified", color="0e8a16", description="SPICE: clarity 0"
    )
    MINOR_GAPS = LabelSpec(
        suffix="clarity: minor-gaps", color="c2e0c6", description="SPICE: clarity 1"
    )
    AMBIGUOUS = LabelSpec(
        suffix="clarity: ambiguous", color="fbca04", description="SPICE: clarity 2"
    )
    UNDERSPECIFIED = LabelSpec(
        suffix="clarity: underspecified", color="d93f0b", description="SPICE: clarity 3"
    )


class CandidateLabel(Enum):
    HAS_CANDIDATE = LabelSpec(
        suffix="has candidate solution",
        color="1d76db",
        description="SPICE: the issue proposes a complete fix or a patch",
    )


class TestsLabel(Enum):
    """RUBRICS.md §3, in score order 0-3."""

    __test__ = False

    COMPLETE = LabelSpec(suffix="tests: complete", color="0e8a16", description="SPICE: tests 0")
    GOOD = LabelSpec(suffix="tests: good", color="c2e0c6", description="SPICE: tests 1")
    LIMITED = LabelSpec(suffix="tests: limited", color="fbca04", description="SPICE: tests 2")
    MISALIGNED = LabelSpec(suffix="tests: misaligned", color="d93f0b", description="SPICE: tests 3")


class DifficultyLabel(Enum):
    """RUBRICS.md §4, in score order 0-3."""

    UNDER_15M = LabelSpec(
        suffix="difficulty: <15m", color="bfdadc", description="SPICE: under 15 minutes"
    )
    UP_TO_1H = LabelSpec(
        suffix="difficulty: 15m-1h", color="7fc8d0", description="SPICE: 15 minutes to 1 hour"
    )
    UP_TO_4H = LabelSpec(
        suffix="difficulty: 1-4h", color="3f9fb0", description="SPICE: 1 to 4 hours"
    )
    OVER_4H = LabelSpec(suffix="difficulty: >4h", color="005f73", description="SPICE: over 4 hours")


class TriageLabel(Enum):
    NEEDS_HUMAN = LabelSpec(
        suffix="triage: needs human",
        color="b60205",
        description="SPICE: the votes disagree across the good/bad boundary",
    )


Family = (
    type[ClarityLabel]
    | type[CandidateLabel]
    | type[TestsLabel]
    | type[DifficultyLabel]
    | type[TriageLabel]
)
AnyLabel = ClarityLabel | CandidateLabel | TestsLabel | DifficultyLabel | TriageLabel
SCORED_FAMILIES: dict[str, Family] = {
    "clarity": ClarityLabel,
    "tests": TestsLabel,
    "test_adequacy": TestsLabel,
    "difficulty": DifficultyLabel,
}


def label_name(label: AnyLabel, prefix: str = "") -> str:
    return prefix + label.value.suffix


def scored_label(dimension: str, score: int | None) -> AnyLabel | None:
    """The label of a 0-3 score: only an integer picks a member, never model text."""
    family = SCORED_FAMILIES.get(dimension)
    if family is None or score is None or not 0 <= score < len(family):
        return None
    members: list[AnyLabel] = list(family)
    return members[score]


class LabelPlan(BaseModel):
    """Desired state per family: one member's name, or None (no label of that family)."""

    desired: dict[str, str | None]
    """Family name -> label name."""

    def family_names(self, prefix: str) -> dict[str, set[str]]:
        families: dict[str, Family] = {f.__name__: f for f in _ALL_FAMILIES}
        return {fam: {label_name(m, prefix) for m in families[fam]} for fam in self.desired}


_ALL_FAMILIES: list[Family] = [
    ClarityLabel,
    CandidateLabel,
    TestsLabel,
    DifficultyLabel,
    TriageLabel,
]


def spec_by_name(prefix: str) -> dict[str, LabelSpec]:
    return {label_name(m, prefix): m.value for fam in _ALL_FAMILIES for m in fam}


class LabelChange(BaseModel):
    added: list[str] = []
    removed: list[str] = []
    created: list[str] = []
    left: list[str] = []
    """Labels of ours a person put on or took off: left as they decided."""


class LabelHistory(BaseModel):
    """The last time each label was put on or taken off an item, and by whom."""

    last: dict[str, LabelEvent]
    """Lower-cased label name -> its latest event."""
    bot: str

    @classmethod
    def from_events(cls, events: list[LabelEvent], bot: str) -> LabelHistory:
        return cls(last={e.label.lower(): e for e in events}, bot=bot)

    def _ours(self, event: LabelEvent) -> bool:
        return event.actor.lower() == self.bot.lower()

    def put_on_by_person(self, name: str) -> bool:
        """For a label present now: anyone but us put it on, or no record says who did."""
        event = self.last.get(name.lower())
        return event is None or not event.added or not self._ours(event)

    def taken_off_by_person(self, name: str) -> bool:
        event = self.last.get(name.lower())
        return event is not None and not event.added and not self._ours(event)


def plan_changes(
    current: list[str], plan: LabelPlan, prefix: str, history: LabelHistory | None = None
) -> LabelChange:
    """What to add and remove so that each planned family holds exactly its desired label.

    With the item's label history, people win: a family holding a label a person put on is
    left whole (they overrode us), and a label a person took off is not put back.
    """
    have = {name.lower(): name for name in current}
    change = LabelChange()
    for family, names in plan.family_names(prefix).items():
        want = plan.desired[family]
        present = [have[name.lower()] for name in sorted(names) if name.lower() in have]
        if history is not None:
            theirs = [name for name in present if history.put_on_by_person(name)]
            if theirs:
                change.left += theirs
                continue
            if want is not None and want.lower() not in have and history.taken_off_by_person(want):
                change.left.append(want)
                want = None
        for name in present:
            if want is None or name.lower() != want.lower():
                change.removed.append(name)
        if want is not None and want.lower() not in have:
            change.added.append(want)
    return change


def plan_for_item(
    repo: GitHubRepo, number: int, current: list[str], plan: LabelPlan, prefix: str, bot: str
) -> LabelChange:
    """`plan_changes` with the item's label history, read only when something would change."""
    change = plan_changes(current, plan, prefix)
    if not change.added and not change.removed:
        return change
    history = LabelHistory.from_events(repo.label_events(number), bot)
    return plan_changes(current, plan, prefix, history)


def apply_labels(
    repo: GitHubRepo, number: int, current: list[str], plan: LabelPlan, prefix: str, bot: str
) -> LabelChange:
    """Create missing labels (colour, description), add ours, remove our stale siblings."""
    change = plan_for_item(repo, number, current, plan, prefix, bot)
    if change.added:
        existing = {name.lower() for name in repo.label_names()}
        specs = spec_by_name(prefix)
        for name in change.added:
            if name.lower() not in existing:
                spec = specs[name]
                repo.create_label(name, spec.color, spec.description)
                change.created.append(name)
        repo.add_labels(number, change.added)
    for name in change.removed:
        repo.remove_label(number, name)
    return change

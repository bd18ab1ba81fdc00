"""Our label allowlist (from the dimension registry) and idempotent add/remove of only our own labels."""

from __future__ import annotations

from pydantic import BaseModel

from app.github.client import GitHubRepo, LabelEvent
from spice_engine.dimensions import (
    NEEDS_HUMAN,
    TRIAGE_FAMILY,
    dimension,
    dimensions_of,
    label_families,
)
from spice_engine.results import Assessment


class LabelSpec(BaseModel):
    suffix: str
    color: str
    description: str


def family_specs() -> dict[str, list[LabelSpec]]:
    """Family -> the labels it may hold, from the dimension registry (the allowlist)."""
    out: dict[str, list[LabelSpec]] = {}
    for family, levels in label_families().items():
        # Several values may share one label (complete fix or exact patch: has candidate).
        unique = {lv.label: lv for lv in levels}
        out[family] = [
            LabelSpec(suffix=str(lv.label), color=lv.color, description=lv.description)
            for lv in unique.values()
        ]
    return out


def scored_label(key: str, score: int | None) -> str | None:
    """The label (no prefix) of a score: only an integer picks it, never model text."""
    try:
        return dimension(key).label_of(score)
    except KeyError:
        return None


class LabelPlan(BaseModel):
    """Desired state per family: one member's name, or None (no label of that family)."""

    desired: dict[str, str | None]
    """Family (a dimension key, or `triage`) -> label name."""

    def family_names(self, prefix: str) -> dict[str, set[str]]:
        families = family_specs()
        return {fam: {prefix + spec.suffix for spec in families[fam]} for fam in self.desired}


def spec_by_name(prefix: str) -> dict[str, LabelSpec]:
    return {prefix + spec.suffix: spec for specs in family_specs().values() for spec in specs}


def plan_labels(a: Assessment, prefix: str) -> LabelPlan:
    """Each of the subject's families gets its result's label (or none); a person is asked for
    when any triage dimension's votes straddle its boundary. Scores pick labels, never text."""
    results, desired = a.results(), {}
    controversial = False
    for dim in dimensions_of(a.subject):
        result = results.get(dim.key)
        suppressed = dim.suppressed_by is not None and bool(getattr(a, dim.suppressed_by))
        label = None if result is None or suppressed else dim.label_of(result.score)
        desired[dim.family] = prefix + label if label else None
        controversial |= dim.triage and result is not None and result.controversial
    desired[TRIAGE_FAMILY] = prefix + str(NEEDS_HUMAN.label) if controversial else None
    return LabelPlan(desired=desired)


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

"""Which surviving mutants the App shows a repository's reviewers, and how a maintainer names one.

The engine measures every mutant; what is shown is decided here, from its verdicts and from
the maintainers' "not useful" answers: a kind of mutant (operator × place: the file and its
enclosing function, or the line outside any) answered not useful in a repository is not shown
there again. The measurement itself is never changed.
"""

from __future__ import annotations

import hashlib
import re
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from spice_engine.strength.result import MutantOutcome, TestStrength

SURVIVOR_ID = re.compile(r"^[0-9a-f]{8}$")
"""A survivor's id as shown (and as `/spice not-useful <id>` must give it)."""


class SurvivorKey(BaseModel):
    """A kind of mutant in a repository: its operator at a place."""

    model_config = ConfigDict(frozen=True)

    operator: str
    path: str
    place: str
    """`name()` of the enclosing function, or `line N` for code outside any."""


class ShownSurvivor(BaseModel):
    """A shown survivor with the id a maintainer answers it by."""

    id: str
    key: SurvivorKey
    mutant: MutantOutcome


class ShownSurvivors(BaseModel):
    """What reviewers see of a measurement: the shown survivors not suppressed, the most
    telling first, and the example (`headline`) among them."""

    shown: list[ShownSurvivor] = []
    headline: ShownSurvivor | None = None
    suppressed: int = 0
    """Survivors that would have been shown but for the maintainers' answers."""


class SurvivorFeedback(Protocol):
    """The App's store of shown survivors and maintainers' answers (app.store.survivor_feedback)."""

    def suppressed(self, repo: str) -> frozenset[SurvivorKey]: ...
    def record_shown(self, repo: str, number: int, shown: list[ShownSurvivor]) -> None: ...
    def not_useful(self, repo: str, number: int, survivor_id: str, login: str) -> bool:
        """False when no survivor of that id was shown in the repository."""
        ...


def key_of(m: MutantOutcome) -> SurvivorKey:
    place = f"{m.function}()" if m.function else f"line {m.line}"
    return SurvivorKey(operator=m.operator, path=m.path, place=place)


def survivor_id(m: MutantOutcome) -> str:
    """Short and stable: the same mutant of the same fix has the same id on every run."""
    text = "\0".join((m.path, str(m.line), m.operator, m.change))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def shown_survivors(
    s: TestStrength | None, suppressed: frozenset[SurvivorKey] = frozenset()
) -> ShownSurvivors:
    if s is None or s.status not in ("measured", "no_mutants"):
        return ShownSurvivors()
    shown: list[ShownSurvivor] = []
    headline: ShownSurvivor | None = None
    hidden = 0
    for m in s.survivors:
        if not m.shown:
            continue
        if key_of(m) in suppressed:
            hidden += 1
            continue
        one = ShownSurvivor(id=survivor_id(m), key=key_of(m), mutant=m)
        shown.append(one)
        if headline is None and m.telling:
            headline = one
    return ShownSurvivors(shown=shown, headline=headline, suppressed=hidden)

"""Per-repository calibration from maintainers' labels: for clarity, post the worst of the
votes instead of their majority when this repository's corrections show that agrees better.

Only from enough human labels (`SPICE_CALIBRATION_MIN_LABELS`), always explained in the
comment, and switched off with `calibration: false` in `.github/spice.yml`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel


class HumanClarity(Protocol):
    human_score: int | None
    our_score: int | None
    our_votes: list[int]


class Calibration(BaseModel):
    rule: str = "worst of the votes"
    labels: int
    """Maintainers' clarity labels it was measured on."""
    majority_agreement: float
    worst_agreement: float

    def explain(self) -> str:
        return (
            f"Calibrated for this repository from {self.labels} maintainer labels: clarity "
            f"is the worst of the votes (agreed with maintainers {self.worst_agreement:.0%}, "
            f"the majority {self.majority_agreement:.0%}). Off with `calibration: false` "
            "in .github/spice.yml."
        )


def calibrate_clarity(rows: Sequence[HumanClarity], minimum: int) -> Calibration | None:
    """The worst-of-votes rule when it agrees strictly better with the maintainers' clarity
    labels than the majority, measured on at least `minimum` of them; else None."""
    scored = [r for r in rows if r.human_score is not None and r.our_score is not None]
    if len(scored) < max(minimum, 1):
        return None
    majority = sum(r.our_score == r.human_score for r in scored) / len(scored)
    hits = sum(max(r.our_votes, default=r.our_score) == r.human_score for r in scored)
    worst = hits / len(scored)
    if worst <= majority:
        return None
    return Calibration(labels=len(scored), majority_agreement=majority, worst_agreement=worst)

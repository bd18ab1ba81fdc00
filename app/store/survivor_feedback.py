"""Shown survivors and maintainers' "not useful" answers, per repository: what the App
suppresses there, and how useful what it showed was (the dashboard's rate)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.shown_survivors import ShownSurvivor as Shown
from app.shown_survivors import SurvivorKey
from app.store.models import ShownSurvivor, SurvivorAnswer, utcnow
from app.store.upsert import dialect_insert


def record_shown(session: Session, repo: str, number: int, shown: list[Shown]) -> None:
    """Keep each shown survivor once per repository (the first pull request it was shown on)."""
    if not shown:
        return
    rows = [
        {
            "repo": repo,
            "survivor_id": s.id,
            "number": number,
            "operator": s.key.operator,
            "path": s.key.path,
            "place": s.key.place,
            "shown_at": utcnow(),
        }
        for s in shown
    ]
    stmt = dialect_insert(session, ShownSurvivor).values(rows)
    session.execute(stmt.on_conflict_do_nothing(index_elements=["repo", "survivor_id"]))


def record_not_useful(
    session: Session, repo: str, number: int, survivor_id: str, login: str
) -> bool:
    """Keep `login`'s answer; False (nothing stored) when no survivor of that id was shown in
    the repository. A second answer on the same survivor keeps the latest person's."""
    shown = session.scalars(
        select(ShownSurvivor).where(
            func.lower(ShownSurvivor.repo) == repo.lower(),
            ShownSurvivor.survivor_id == survivor_id,
        )
    ).first()
    if shown is None:
        return False
    values = {
        "repo": shown.repo,
        "survivor_id": survivor_id,
        "number": number,
        "operator": shown.operator,
        "path": shown.path,
        "place": shown.place,
        "login": login,
        "answered_at": utcnow(),
    }
    stmt = dialect_insert(session, SurvivorAnswer).values(**values)
    key = ["repo", "survivor_id"]
    session.execute(
        stmt.on_conflict_do_update(
            index_elements=key, set_={k: stmt.excluded[k] for k in values if k not in key}
        )
    )
    return True


def suppressed_keys(session: Session, repo: str) -> frozenset[SurvivorKey]:
    rows = session.execute(
        select(SurvivorAnswer.operator, SurvivorAnswer.path, SurvivorAnswer.place).where(
            func.lower(SurvivorAnswer.repo) == repo.lower()
        )
    )
    return frozenset(SurvivorKey(operator=o, path=p, place=pl) for o, p, pl in rows.tuples())


@dataclass(frozen=True)
class Usefulness:
    """Of the survivors shown in a repository, how many a maintainer answered not useful."""

    shown: int
    not_useful: int

    @property
    def share(self) -> str:
        """Shown and not answered "not useful", e.g. "75%"; "-" when nothing was shown."""
        return f"{(self.shown - self.not_useful) / self.shown:.0%}" if self.shown else "-"

    @property
    def rate(self) -> str:
        """E.g. "75% of 4"."""
        return f"{self.share} of {self.shown}" if self.shown else "-"


def usefulness(session: Session, repos: list[str]) -> dict[str, Usefulness]:
    def counts(table: type[ShownSurvivor] | type[SurvivorAnswer]) -> dict[str, int]:
        rows = session.execute(
            select(table.repo, func.count(table.id))
            .where(table.repo.in_(repos))
            .group_by(table.repo)
        )
        return {str(r): int(n) for r, n in rows.tuples()}

    shown, answered = counts(ShownSurvivor), counts(SurvivorAnswer)
    return {r: Usefulness(shown.get(r, 0), answered.get(r, 0)) for r in repos}


class StoredSurvivorFeedback:
    """`app.shown_survivors.SurvivorFeedback` on the App's store."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def suppressed(self, repo: str) -> frozenset[SurvivorKey]:
        with self._sessions() as session:
            return suppressed_keys(session, repo)

    def record_shown(self, repo: str, number: int, shown: list[Shown]) -> None:
        with self._sessions.begin() as session:
            record_shown(session, repo, number, shown)

    def not_useful(self, repo: str, number: int, survivor_id: str, login: str) -> bool:
        with self._sessions.begin() as session:
            return record_not_useful(session, repo, number, survivor_id, login)

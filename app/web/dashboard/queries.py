"""What the dashboard reads from the store, one function per question, scoped to a repository."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import func, select, union
from sqlalchemy.orm import InstrumentedAttribute, Session

from app.store.models import Assessment, HumanLabel, TaskInstance, utcnow

CONTROVERSY_WINDOW = 500
"""Latest assessments searched for split votes."""


def known_repos(session: Session) -> list[str]:
    """Every repository the store holds decisions or harvested instances of."""
    names = union(select(Assessment.repo), select(TaskInstance.repo))
    return sorted({str(r) for r in session.scalars(select(names.subquery().c[0]))})


@dataclass(frozen=True)
class RepoCounts:
    repo: str
    decisions: int
    corrections: int
    instances: int
    last_decision: datetime | None


def _count_by_repo(
    session: Session,
    repo: InstrumentedAttribute[str],
    key: InstrumentedAttribute[int],
    repos: list[str],
) -> dict[str, int]:
    rows = session.execute(select(repo, func.count(key)).where(repo.in_(repos)).group_by(repo))
    return {str(r): int(n) for r, n in rows.tuples().all()}


def repo_counts(session: Session, repos: list[str]) -> list[RepoCounts]:
    decisions = _count_by_repo(session, Assessment.repo, Assessment.id, repos)
    corrections = _count_by_repo(session, HumanLabel.repo, HumanLabel.id, repos)
    instances = _count_by_repo(session, TaskInstance.repo, TaskInstance.id, repos)
    last = dict(
        session.execute(
            select(Assessment.repo, func.max(Assessment.created_at))
            .where(Assessment.repo.in_(repos))
            .group_by(Assessment.repo)
        )
        .tuples()
        .all()
    )
    return [
        RepoCounts(r, decisions.get(r, 0), corrections.get(r, 0), instances.get(r, 0), last.get(r))
        for r in repos
    ]


def recent_decisions(session: Session, repo: str, limit: int, offset: int = 0) -> list[Assessment]:
    return list(
        session.scalars(
            select(Assessment)
            .where(Assessment.repo == repo)
            .order_by(Assessment.created_at.desc(), Assessment.id.desc())
            .limit(limit)
            .offset(offset)
        )
    )


def decision_count(session: Session, repo: str) -> int:
    return int(
        session.scalar(select(func.count(Assessment.id)).where(Assessment.repo == repo)) or 0
    )


def human_labels_of(session: Session, repo: str) -> list[HumanLabel]:
    return list(
        session.scalars(
            select(HumanLabel).where(HumanLabel.repo == repo).order_by(HumanLabel.changed_at.desc())
        )
    )


def split_votes(session: Session, repo: str, limit: int) -> list[tuple[Assessment, str]]:
    """Latest decisions whose votes on some dimension were not unanimous, with that dimension;
    not those a maintainer has since settled with a label of that dimension."""
    # A person's label settles the decision it answered (and older ones), not a later re-vote.
    settled = {
        (number, dimension): answered
        for number, dimension, answered in session.execute(
            select(HumanLabel.number, HumanLabel.dimension, HumanLabel.assessment_id).where(
                HumanLabel.repo == repo
            )
        ).tuples()
    }
    found: list[tuple[Assessment, str]] = []
    for row in recent_decisions(session, repo, CONTROVERSY_WINDOW):
        for voted in row.votes:
            dimension = str(voted.get("dimension"))
            answered = settled.get((row.number, dimension))
            if answered is not None and row.id <= answered:
                continue  # a maintainer corrected (or confirmed) it: nothing left to look at
            if len(set(voted.get("votes") or [])) > 1:
                found.append((row, dimension))
        if len(found) >= limit:
            break
    return found[:limit]


def spend_by_day(session: Session, repo: str, days: int) -> tuple[dict[date, float | None], int]:
    """Dollars per day over the last `days` (every day present: zero when nothing was spent,
    None when every decision that day had an unknown cost), and how many decisions in that
    time had no known cost."""
    today = utcnow().date()
    first = today - timedelta(days=days - 1)
    known: dict[date, float] = {}
    unknown_days: set[date] = set()
    unknown = 0
    rows = session.execute(
        select(Assessment.created_at, Assessment.cost_usd).where(
            Assessment.repo == repo,
            Assessment.created_at >= datetime.combine(first, datetime.min.time()),
        )
    )
    for created, cost in rows:
        day = created.date()
        if day < first or day > today:
            continue
        if cost is None:
            unknown += 1
            unknown_days.add(day)
        else:
            known[day] = known.get(day, 0.0) + float(cost)
    spend: dict[date, float | None] = {}
    for i in range(days):
        day = first + timedelta(days=i)
        spend[day] = known.get(day, None if day in unknown_days else 0.0)
    return spend, unknown


def agreement_by_week(labels: list[HumanLabel]) -> dict[date, tuple[int, int]]:
    """Per week (its Monday): maintainer labels equal to ours, and maintainer labels."""
    weeks: dict[date, list[int]] = defaultdict(lambda: [0, 0])
    for row in labels:
        monday = row.changed_at.date() - timedelta(days=row.changed_at.weekday())
        weeks[monday][0] += row.human_score == row.our_score
        weeks[monday][1] += 1
    return {week: (agree, n) for week, (agree, n) in sorted(weeks.items())}


def instances_of(session: Session, repo: str) -> list[TaskInstance]:
    return list(
        session.scalars(
            select(TaskInstance)
            .where(TaskInstance.repo == repo)
            .order_by(TaskInstance.created_at.desc(), TaskInstance.id.desc())
        )
    )

"""The dashboard's pages as data: the index of repositories and one repository's page."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from pydantic import BaseModel
from sqlalchemy.orm import Session

from app.sandboxing import live_validation_problem
from app.settings import Settings
from app.store.human_labels import untouched_items
from app.store.models import HumanLabel
from app.store.survivor_feedback import Usefulness, usefulness
from app.web.dashboard import queries
from app.web.dashboard.access import Viewer
from app.web.dashboard.charts import Chart, bar_chart
from app.web.dashboard.views import (
    CorrectionRow,
    DecisionRow,
    InstanceRow,
    SplitRow,
    calibration_text,
    correction_row,
    decision_row,
    instance_row,
    split_row,
    stamp,
    week_label,
)

PAGE_SIZE = 20
QUEUE_SIZE = 30
SPEND_DAYS = 30


class RepoLine(BaseModel):
    repo: str
    decisions: int
    corrections: int
    instances: int
    last_decision: str
    usefulness: str = "-"
    """Of the surviving mutants shown, the share no maintainer answered "not useful"."""


class IndexPage(BaseModel):
    viewer: Viewer
    repos: list[RepoLine]


class Agreement(BaseModel):
    labels: int
    agreeing: int
    removed_only: int
    untouched: int

    @property
    def share(self) -> str:
        return f"{self.agreeing / self.labels:.0%}" if self.labels else "-"


class RepoPage(BaseModel):
    viewer: Viewer
    repo: str
    repo_url: str
    decisions: list[DecisionRow]
    page: int
    pages: int
    corrections: list[CorrectionRow]
    corrections_total: int
    splits: list[SplitRow]
    agreement: Agreement
    agreement_chart: Chart
    calibration: str
    spend_chart: Chart
    spend_total: str
    spend_unknown: int
    dataset: list[InstanceRow]
    dataset_counts: dict[str, int]
    validation_off: str
    """Why harvested instances are not validated here ("" when they are)."""
    usefulness: Usefulness


def index_page(session: Session, viewer: Viewer) -> IndexPage:
    visible = [r for r in queries.known_repos(session) if viewer.can_see(r)]
    useful = usefulness(session, visible)
    lines = [
        RepoLine(
            repo=c.repo,
            decisions=c.decisions,
            corrections=c.corrections,
            instances=c.instances,
            last_decision=stamp(c.last_decision) if c.last_decision else "-",
            usefulness=useful[c.repo].rate,
        )
        for c in queries.repo_counts(session, visible)
    ]
    return IndexPage(viewer=viewer, repos=lines)


def repo_page(
    session: Session,
    settings: Settings,
    viewer: Viewer,
    repo: str,
    page: int,
    secrets: tuple[str, ...],
) -> RepoPage:
    web = settings.github_web_url.rstrip("/")
    total = queries.decision_count(session, repo)
    pages = max(1, -(-total // PAGE_SIZE))
    page = min(max(page, 1), pages)
    decisions = queries.recent_decisions(session, repo, PAGE_SIZE, (page - 1) * PAGE_SIZE)
    labels = queries.human_labels_of(session, repo)
    corrected = [r for r in labels if r.human_score != r.our_score]
    instances = [instance_row(r, web) for r in queries.instances_of(session, repo)]
    spend_chart, spend_total, unknown = _spend(session, repo)
    return RepoPage(
        viewer=viewer,
        repo=repo,
        repo_url=f"{web}/{repo}",
        decisions=[decision_row(r, web, secrets) for r in decisions],
        page=page,
        pages=pages,
        corrections=[correction_row(r, web) for r in corrected[:QUEUE_SIZE]],
        corrections_total=len(corrected),
        splits=[
            split_row(r, key, web) for r, key in queries.split_votes(session, repo, QUEUE_SIZE)
        ],
        agreement=_agreement(session, repo, labels),
        agreement_chart=_agreement_chart(labels),
        calibration=calibration_text(labels, settings.calibration_min_labels),
        spend_chart=spend_chart,
        spend_total=spend_total,
        spend_unknown=unknown,
        dataset=instances,
        dataset_counts=dict(Counter(r.status for r in instances).most_common()),
        validation_off=live_validation_problem(settings) or "",
        usefulness=usefulness(session, [repo])[repo],
    )


def _agreement(session: Session, repo: str, labels: list[HumanLabel]) -> Agreement:
    scored = [r for r in labels if r.human_score is not None and r.our_score is not None]
    return Agreement(
        labels=len(scored),
        agreeing=sum(r.human_score == r.our_score for r in scored),
        removed_only=sum(r.human_score is None for r in labels),
        untouched=untouched_items(session, repo),
    )


def _agreement_chart(labels: list[HumanLabel]) -> Chart:
    scored = [r for r in labels if r.human_score is not None and r.our_score is not None]
    weeks = queries.agreement_by_week(scored)
    points: list[tuple[str, float | None, str]] = []
    week = min(weeks, default=None)
    while week is not None and week <= max(weeks):
        agree, n = weeks.get(week, (0, 0))
        tip = f"week of {week_label(week)}: {agree} of {n} agree" if n else "no labels that week"
        points.append((week_label(week), 100 * agree / n if n else None, tip))
        week += timedelta(days=7)
    return bar_chart(
        "Agreement with maintainers per week",
        "week",
        points,
        top=100,
        unit="{:.0f}%",
        empty="No maintainer has changed one of our labels yet.",
        missing="no labels",
    )


def _spend(session: Session, repo: str) -> tuple[Chart, str, int]:
    """The chart, the headline and how many decisions had no known cost. A day whose every
    decision had an unknown cost has no bar: it is not a free day."""
    spend, unknown = queries.spend_by_day(session, repo, SPEND_DAYS)
    points: list[tuple[str, float | None, str]] = [
        (
            d.strftime("%d %b"),
            usd,
            f"{d:%Y-%m-%d}: " + ("cost unknown" if usd is None else f"${usd:.4f}"),
        )
        for d, usd in spend.items()
    ]
    chart = bar_chart(
        f"Model spend per day, last {SPEND_DAYS} days",
        "day",
        points,
        unit="${:.4f}",
        missing="unknown",
    )
    spent = sum(usd for usd in spend.values() if usd is not None)
    # Nothing known spent and decisions of unknown cost: the headline does not say $0.
    return chart, "unknown" if unknown and not spent else f"${spent:.4f}", unknown

"""A store seeded as the App leaves it: assessments built from real engine results, maintainers'
labels recorded through the store's own function, harvested instances with validation."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from app.settings import Settings
from app.store.assessments import AssessmentRecord, DimensionVotes, save_assessment
from app.store.human_labels import record_human_label
from app.store.models import Assessment, HumanLabel, TaskInstance, utcnow
from spice_engine.aggregation import aggregate_dimension
from spice_engine.models import Issue, IssueAssessment, PromptRef, Usage, Vote
from tests.service.settings import service_settings

OPERATOR_TOKEN = "operator-token-for-tests-0123456789"
HOSTILE_TITLE = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'


def dashboard_settings(data_dir: Path, **overrides: Any) -> Settings:
    return service_settings(data_dir, dashboard_token=OPERATOR_TOKEN, **overrides)


def issue_result(
    repo: str, number: int, title: str, votes: list[int], cost: float
) -> IssueAssessment:
    clarity = aggregate_dimension(
        "clarity",
        [
            Vote(score=s, rationale=f"vote {i}: the issue says {title[:40]}")
            for i, s in enumerate(votes)
        ],
        len(votes),
    )
    return IssueAssessment(
        model="gpt-4o-mini",
        engine_version="test",
        usage=Usage(input=1200, output=90, cost_usd=cost, requests=len(votes)),
        input_hash=f"{repo}#{number}:{votes}",
        evidence={"reproduction": "full", "localization": {"file": "src/app.py"}},
        issue=Issue(title=title, body="body", repo=repo, number=number),
        clarity=clarity,
        candidate_solution=None,
        prompt=PromptRef(id="issue_clarity", version="2"),
    )


def save_issue(
    sessions: sessionmaker[Session],
    repo: str,
    number: int,
    title: str,
    votes: list[int],
    cost: float | None = 0.0012,
    days_ago: float = 0.0,
) -> None:
    result = issue_result(repo, number, title, votes, cost or 0.0)
    clarity = result.clarity
    record = AssessmentRecord(
        kind="issue",
        repo=repo,
        number=number,
        input_hash=result.input_hash,
        labels=[f"spice: clarity {clarity.score}"],
        votes=[DimensionVotes(dimension="clarity", score=clarity.score, votes=votes)],
        rationales=[v.rationale for v in clarity.votes],
        tokens_in=1200,
        tokens_out=90,
        cost_usd=cost,
        model=result.model,
        prompt_version="issue_clarity v2",
        result=json.loads(result.model_dump_json()),
    )
    with sessions.begin() as session:
        save_assessment(session, record, f"delivery-{repo}-{number}")
        session.execute(
            update(Assessment)
            .where(Assessment.repo == repo, Assessment.number == number)
            .values(created_at=utcnow() - timedelta(days=days_ago))
        )


def maintainer_label(
    sessions: sessionmaker[Session],
    repo: str,
    number: int,
    score: int | None,
    days_ago: float = 0.0,
) -> None:
    with sessions.begin() as session:
        assert record_human_label(session, repo, number, "clarity", score, "maintainer")
        session.execute(
            update(HumanLabel)
            .where(HumanLabel.repo == repo, HumanLabel.number == number)
            .values(changed_at=utcnow() - timedelta(days=days_ago))
        )


def harvested(
    sessions: sessionmaker[Session],
    repo: str,
    pr: int,
    status: str,
    f2p: list[str],
    strength: dict[str, object] | None = None,
) -> None:
    instance_id = f"{repo.replace('/', '__')}-{pr}"
    instance = {"instance_id": instance_id, "repo": repo, "created_at": "2026-10-01T00:00:00Z"}
    fields = {"FAIL_TO_PASS": json.dumps(f2p), "PASS_TO_PASS": "[]"}
    labels: dict[str, object] = {"validation": {"status": status, "fields": fields}}
    if strength is not None:
        labels["test_strength"] = strength
    with sessions.begin() as session:
        session.add(
            TaskInstance(
                instance_id=instance_id, repo=repo, pr_number=pr, instance=instance, labels=labels
            )
        )


def seed(sessions: sessionmaker[Session], repo: str, hostile: bool = False) -> None:
    """Ten weeks of a repository's life: decisions, split votes, corrections, spend, dataset."""
    for n in range(1, 25):
        votes = [1, 1, 1] if n % 4 else [1, 2, 3]
        title = HOSTILE_TITLE if hostile and n == 1 else f"Crash when parsing config file {n}"
        save_issue(sessions, repo, n, title, votes, cost=0.001 * (n % 5 + 1), days_ago=n * 2.5)
    for n in range(1, 15):
        # Maintainers agree more and more: older weeks disagree, recent ones agree.
        maintainer_label(sessions, repo, n, 1 if n < 9 else 2, days_ago=n * 4)
    maintainer_label(sessions, repo, 15, None, days_ago=1)
    strength = {"status": "measured", "score": 0.75, "mutants_killed": 3, "mutants_tried": 4}
    harvested(sessions, repo, 101, "valid", ["tests/test_a.py::test_x"], strength)
    harvested(sessions, repo, 102, "patch_does_not_apply", [])

"""Store on SQLite and PostgreSQL: migrations, delivery dedup, job state machine, upserts."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, func, inspect, select, text
from sqlalchemy.orm import Session, sessionmaker

from app.store.assessments import (
    AssessmentRecord,
    DimensionVotes,
    assessments_for,
    save_assessment,
    stored_result,
)
from app.store.deliveries import NewDelivery, delivery_body, get_delivery, record_deliveries
from app.store.engine import make_engine, session_factory
from app.store.intake import Intake, store_delivery
from app.store.jobs import claim_run, finish_run, get_job, request_run
from app.store.migrate import alembic_config, upgrade_to_head
from app.store.models import Delivery, utcnow
from tests.assessment_samples import issue_assessment
from tests.service.backends import throwaway_postgres

TABLES = {
    "alembic_version",
    "deliveries",
    "jobs",
    "assessments",
    "task_instances",
    "dashboard_sessions",
}


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
        upgrade_to_head(engine)
        yield engine
        engine.dispose()
        return
    with throwaway_postgres() as url:
        engine = make_engine(url)
        upgrade_to_head(engine)
        yield engine
        engine.dispose()


@pytest.fixture
def sessions(engine: Engine) -> sessionmaker[Session]:
    return session_factory(engine)


def delivery(delivery_id: str, key: str = "o/r#1") -> NewDelivery:
    return NewDelivery(
        delivery_id=delivery_id,
        event="issues",
        action="opened",
        repo="o/r",
        job_key=key,
        payload=b'{"x": 1}',
    )


def test_migration_creates_every_table_and_is_idempotent(engine: Engine) -> None:
    assert set(inspect(engine).get_table_names()) >= TABLES
    upgrade_to_head(engine)  # a second start finds the schema current
    head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
    with engine.connect() as conn:
        versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    assert versions == [head]


def test_record_delivery_is_new_once(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        assert record_deliveries(session, [delivery("a")]) == {"a"}
        assert record_deliveries(session, [delivery("a")]) == set()
        assert record_deliveries(session, [delivery("b"), delivery("b")]) == {"b"}
    with sessions() as session:
        stored = get_delivery(session, "a")
        assert stored is not None and stored.payload == b'{"x": 1}'
        assert stored.payload_sha256 == hashlib.sha256(b'{"x": 1}').hexdigest()


def test_each_delivery_is_stored_once_with_one_run_per_key(
    sessions: sessionmaker[Session],
) -> None:
    assert [
        store_delivery(sessions, delivery(f"n{i}", key=f"o/r#{i}")).intake for i in range(3)
    ] == [Intake.queued] * 3
    # A redelivery, and a new delivery of a key whose job is still pending.
    assert store_delivery(sessions, delivery("n0", key="o/r#0")).intake is Intake.duplicate
    assert store_delivery(sessions, delivery("m1", key="o/r#1")).intake is Intake.coalesced
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Delivery)) == 4
        job = get_job(session, "o/r#1")
        assert job is not None and job.delivery_id == "m1" and job.generation == 2
        stored = get_delivery(session, "m1")
        assert stored is not None
        # Datetimes went through the driver as the column type writes them (SQLite: UTC text).
        received = stored.received_at.replace(tzinfo=UTC)
        assert abs(received - utcnow()) < timedelta(minutes=1)


def test_concurrent_copies_of_one_delivery_store_one_row_and_one_job(
    sessions: sessionmaker[Session],
) -> None:
    results: list[Intake] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(store_delivery(sessions, delivery("x")).intake)
        )
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == sorted([Intake.queued] + [Intake.duplicate] * 7)
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Delivery)) == 1


def test_payloads_are_stored_compressed_and_read_back_verbatim(
    sessions: sessionmaker[Session],
) -> None:
    body = json.dumps({"issue": {"body": "the parser fails " * 400}}).encode()
    new = NewDelivery.received(
        delivery_id="z", event="issues", action="opened", repo="o/r", job_key="o/r#7", body=body
    )
    store_delivery(sessions, new)
    with sessions() as session:
        stored = get_delivery(session, "z")
        assert stored is not None
        assert stored.payload_codec == "lz4" and len(stored.payload) < len(body) / 4
        assert stored.payload_sha256 == hashlib.sha256(body).hexdigest()
        assert delivery_body(stored) == body


def test_job_state_machine(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        assert request_run(session, "o/r#1", "a") is True  # new key: enqueue
        assert request_run(session, "o/r#1", "b") is False  # pending: coalesced
    with sessions.begin() as session:
        run = claim_run(session, "o/r#1")
        assert run is not None and run.delivery_id == "b" and run.generation == 2
        assert claim_run(session, "o/r#1") is None  # running: nobody else claims it
        assert request_run(session, "o/r#1", "c") is False  # running: it re-runs itself
        assert finish_run(session, run) is True  # finished behind generation 3: run again
        rerun = claim_run(session, "o/r#1")
        assert rerun is not None and rerun.delivery_id == "c"
        assert finish_run(session, rerun, error="boom", final=True) is False
        job = get_job(session, "o/r#1")
        assert job is not None and (job.state, job.error) == ("failed", "boom")
        assert request_run(session, "o/r#1", "d") is True  # failed: a new delivery restarts
        job = get_job(session, "o/r#1")
        assert job is not None and (job.state, job.attempts, job.error) == ("pending", 0, None)


def record(input_hash: str, labels: list[str]) -> AssessmentRecord:
    return AssessmentRecord(
        kind="issue",
        repo="o/r",
        number=1,
        input_hash=input_hash,
        labels=labels,
        votes=[DimensionVotes(dimension="clarity", score=1, votes=[1, 2])],
        rationales=["a", "b"],
        tokens_in=10,
        tokens_out=5,
        cost_usd=0.001,
        model="openai/fake",
        prompt_version="issue_clarity/v1",
        result=issue_assessment("o/r", 1, [1, 2]),
    )


def test_assessment_upsert_is_idempotent_per_input(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        save_assessment(session, record("h1", ["x"]), "a")
        save_assessment(session, record("h1", ["y"]), "b")
        save_assessment(session, record("h2", ["z"]), "c")
    with sessions() as session:
        rows = assessments_for(session, "o/r", 1)
    assert [(r.input_hash, r.labels, r.delivery_id) for r in rows] == [
        ("h1", ["y"], "b"),
        ("h2", ["z"], "c"),
    ]
    assert stored_result(rows[0]) == issue_assessment("o/r", 1, [1, 2])


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'wal.db'}")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 10_000

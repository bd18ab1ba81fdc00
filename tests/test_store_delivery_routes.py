"""Migration 0006: deliveries stored before routes were kept get the route routing gave them."""

from __future__ import annotations

import hashlib
from pathlib import Path

import lz4.frame
import sqlalchemy as sa
from alembic import command
from sqlalchemy.orm import Session

from app.store.engine import make_engine
from app.store.installations import InstallationChange, apply_change
from app.store.migrate import alembic_config, upgrade_to_head

LEGACY = [  # (delivery id, event, action, job key)
    ("d1", "issues", "opened", "octo-org/widgets#7"),
    ("d2", "pull_request", "opened", "octo-org/widgets#10"),
    ("d3", "pull_request", "closed", "octo-org/widgets#10/merged"),
    ("d4", "issue_comment", "created", "octo-org/widgets#7/comment/55"),
    ("d5", "issues", "labeled", "octo-org/widgets#7/label/labeled/clarity: vague"),
    ("d6", "installation", "created", "installation/1"),
]


def test_legacy_deliveries_get_their_kind_and_number(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'spice.db'}")
    command.upgrade(alembic_config(engine), "0005_dashboard_sessions")
    with engine.begin() as conn:
        for delivery_id, event, action, key in LEGACY:
            conn.execute(
                sa.text(
                    "INSERT INTO deliveries (delivery_id, event, action, repo, job_key,"
                    " received_at, payload_sha256, payload, status) VALUES"
                    " (:d, :e, :a, 'octo-org/widgets', :k, CURRENT_TIMESTAMP, 'x', x'7b7d',"
                    " 'queued')"
                ),
                {"d": delivery_id, "e": event, "a": action, "k": key},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO jobs (key, state, generation, run_generation, delivery_id,"
                    " attempts, created_at, updated_at) VALUES"
                    " (:k, 'pending', 1, 0, :d, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"k": key, "d": delivery_id},
            )
    upgrade_to_head(engine)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT delivery_id, kind, number FROM deliveries ORDER BY delivery_id")
        ).all()
        states: dict[str, str] = dict(conn.execute(sa.text("SELECT key, state FROM jobs")).all())
    assert [tuple(r) for r in rows] == [
        ("d1", "issue", 7),
        ("d2", "pull_request", 10),
        ("d3", "harvest", 10),
        ("d4", "comment", 7),
        ("d5", "label", 7),
        ("d6", "installation", None),
    ]
    # The worker used to skip installation events: a waiting one is closed, not run.
    assert states["installation/1"] == "done" and states["octo-org/widgets#7"] == "pending"


def test_rows_stored_before_0006_get_their_installation_and_can_be_cancelled(
    tmp_path: Path,
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'spice.db'}")
    command.upgrade(alembic_config(engine), "0005_dashboard_sessions")
    raw = b'{"action": "opened", "installation": {"id": 1}}'
    old = [  # (delivery id, job key, payload, codec)
        ("p1", "octo-org/widgets#7", raw, None),
        ("p2", "octo-org/widgets#8", lz4.frame.compress(raw), "lz4"),
        ("p3", "octo-org/widgets#9", b'{"action": "opened"}', None),
    ]
    with engine.begin() as conn:
        for delivery_id, key, stored, codec in old:
            body = raw if codec else stored
            conn.execute(
                sa.text(
                    "INSERT INTO deliveries (delivery_id, event, action, repo, job_key,"
                    " received_at, payload_sha256, payload, payload_codec, status) VALUES"
                    " (:d, 'issues', 'opened', 'octo-org/widgets', :k, CURRENT_TIMESTAMP,"
                    " :h, :p, :c, 'queued')"
                ),
                {
                    "d": delivery_id,
                    "k": key,
                    "p": stored,
                    "c": codec,
                    "h": hashlib.sha256(body).hexdigest(),
                },
            )
            conn.execute(
                sa.text(
                    "INSERT INTO jobs (key, state, generation, run_generation, delivery_id,"
                    " attempts, created_at, updated_at) VALUES"
                    " (:k, 'pending', 1, 0, :d, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"k": key, "d": delivery_id},
            )
    upgrade_to_head(engine)
    with Session(engine) as session, session.begin():
        apply_change(session, InstallationChange(installation=1, action="deleted"))
    with engine.connect() as conn:
        found = dict(
            conn.execute(sa.text("SELECT delivery_id, installation FROM deliveries")).all()
        )
        states = dict(conn.execute(sa.text("SELECT delivery_id, status FROM deliveries")).all())
        jobs = dict(conn.execute(sa.text("SELECT key, state FROM jobs")).all())
    assert found == {"p1": 1, "p2": 1, "p3": None}  # p3 named no installation
    assert states == {"p1": "cancelled", "p2": "cancelled", "p3": "queued"}
    assert jobs["octo-org/widgets#7"] == jobs["octo-org/widgets#8"] == "cancelled"


def test_deliveries_left_queued_by_ended_jobs_end_with_them(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'spice.db'}")
    command.upgrade(alembic_config(engine), "0006_delivery_routes")
    rows = [  # (delivery id, kind, job key, job state): as the code before 0007 left them
        ("c1", "issue", "octo-org/widgets#7", "cancelled"),
        ("i1", "installation", "installation/1", "done"),
        ("w1", "issue", "octo-org/widgets#8", "pending"),
    ]
    with engine.begin() as conn:
        for delivery_id, kind, key, state in rows:
            conn.execute(
                sa.text(
                    "INSERT INTO deliveries (delivery_id, event, action, repo, job_key, kind,"
                    " received_at, payload_sha256, payload, status) VALUES (:d, 'issues',"
                    " 'opened', 'octo-org/widgets', :k, :kind, CURRENT_TIMESTAMP, 'x', x'7b7d',"
                    " 'queued')"
                ),
                {"d": delivery_id, "k": key, "kind": kind},
            )
            conn.execute(
                sa.text(
                    "INSERT INTO jobs (key, state, generation, run_generation, delivery_id,"
                    " attempts, created_at, updated_at) VALUES"
                    " (:k, :s, 1, 0, :d, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                ),
                {"k": key, "s": state, "d": delivery_id},
            )
    upgrade_to_head(engine)
    with engine.connect() as conn:
        states = dict(conn.execute(sa.text("SELECT delivery_id, status FROM deliveries")).all())
    assert states == {"c1": "cancelled", "i1": "done", "w1": "queued"}  # w1 still waits

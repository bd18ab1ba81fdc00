"""delivery routes: the kind, number and installation decided at the door

Revision ID: 0006_delivery_routes
Revises: 0005_dashboard_sessions
Create Date: 2026-12-02

"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_delivery_routes"
down_revision: str | Sequence[str] | None = "0005_dashboard_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NUMBER = re.compile(r"#(\d+)")


def _kind(event: str, key: str) -> str:
    """The kind routing gave rows stored before routes were kept, read off their job key."""
    if key.startswith("installation/"):
        return "installation"
    for part, kind in (("/merged", "harvest"), ("/label/", "label"), ("/comment/", "comment")):
        if part in key:
            return kind
    return "issue" if event == "issues" else "pull_request"


def upgrade() -> None:
    with op.batch_alter_table("deliveries") as batch:
        batch.add_column(sa.Column("kind", sa.String(length=20), nullable=True))
        batch.add_column(sa.Column("number", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("installation", sa.BigInteger(), nullable=True))
        batch.create_index("ix_deliveries_installation", ["installation"], unique=False)
    conn = op.get_bind()
    deliveries = sa.table(
        "deliveries",
        sa.column("id", sa.Integer),
        sa.column("event", sa.String),
        sa.column("job_key", sa.String),
        sa.column("kind", sa.String),
        sa.column("number", sa.Integer),
    )
    # Before routes were stored the worker skipped every installation event: a job of one
    # still waiting would do nothing, so it is closed rather than run by the new handler.
    jobs = sa.table("jobs", sa.column("key", sa.String), sa.column("state", sa.String))
    conn.execute(
        jobs.update()
        .where(jobs.c.key.like("installation/%"), jobs.c.state == "pending")
        .values(state="done")
    )
    rows = conn.execute(sa.select(deliveries.c.id, deliveries.c.event, deliveries.c.job_key))
    for row_id, event, key in rows.fetchall():
        found = _NUMBER.search(key)
        conn.execute(
            deliveries.update()
            .where(deliveries.c.id == row_id)
            .values(kind=_kind(event, key), number=int(found.group(1)) if found else None)
        )


def downgrade() -> None:
    with op.batch_alter_table("deliveries") as batch:
        batch.drop_index("ix_deliveries_installation")
        batch.drop_column("installation")
        batch.drop_column("number")
        batch.drop_column("kind")

"""installation states, and the installation of deliveries stored before 0006

Revision ID: 0007_installation_states
Revises: 0006_delivery_routes
Create Date: 2026-12-03

"""

import hashlib
from collections.abc import Sequence

import lz4.frame
import orjson
import sqlalchemy as sa
from alembic import op

revision: str = "0007_installation_states"
down_revision: str | Sequence[str] | None = "0006_delivery_routes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _installation_of(payload: bytes, codec: str | None, sha256: str) -> int | None:
    """The `installation.id` a stored payload names; None when it names none or cannot be
    read (pruned, damaged): such a row stays as it was."""
    try:
        raw = lz4.frame.decompress(payload) if codec == "lz4" else payload if not codec else b""
        if hashlib.sha256(raw).hexdigest() != sha256:
            return None
        found = (orjson.loads(raw).get("installation") or {}).get("id")
    except (RuntimeError, orjson.JSONDecodeError, AttributeError):
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def _close_stuck_deliveries(conn: sa.Connection) -> None:
    """Deliveries left `queued` by jobs that ended without them: a cancelled job's (they
    end cancelled now), and the installation events 0006 closed (done)."""
    jobs = sa.table("jobs", sa.column("key", sa.String), sa.column("state", sa.String))
    deliveries = sa.table(
        "deliveries",
        sa.column("job_key", sa.String),
        sa.column("kind", sa.String),
        sa.column("status", sa.String),
    )
    for state, kind, status in (("cancelled", None, "cancelled"), ("done", "installation", "done")):
        ended = sa.select(jobs.c.key).where(jobs.c.state == state)
        stuck = deliveries.update().where(
            deliveries.c.status == "queued", deliveries.c.job_key.in_(ended)
        )
        if kind is not None:
            stuck = stuck.where(deliveries.c.kind == kind)
        conn.execute(stuck.values(status=status))


def upgrade() -> None:
    op.create_table(
        "installations",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "removed_repositories",
        sa.Column("installation", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("installation", "repo"),
    )
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("cancelled_for", sa.String(length=20), nullable=True))
    conn = op.get_bind()
    _close_stuck_deliveries(conn)
    # Rows stored before 0006 kept no installation: an uninstall could not find their jobs.
    deliveries = sa.table(
        "deliveries",
        sa.column("id", sa.Integer),
        sa.column("installation", sa.BigInteger),
        sa.column("payload", sa.LargeBinary),
        sa.column("payload_codec", sa.String),
        sa.column("payload_sha256", sa.String),
    )
    last = 0
    while True:  # in batches: payloads are up to 25 MB each
        rows = conn.execute(
            sa.select(
                deliveries.c.id,
                deliveries.c.payload,
                deliveries.c.payload_codec,
                deliveries.c.payload_sha256,
            )
            .where(deliveries.c.installation.is_(None), deliveries.c.id > last)
            .order_by(deliveries.c.id)
            .limit(200)
        ).fetchall()
        if not rows:
            return
        for row_id, payload, codec, sha256 in rows:
            installation = _installation_of(bytes(payload or b""), codec, sha256)
            if installation is not None:
                conn.execute(
                    deliveries.update()
                    .where(deliveries.c.id == row_id)
                    .values(installation=installation)
                )
        last = rows[-1][0]


def downgrade() -> None:
    op.drop_table("removed_repositories")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("cancelled_for")
    op.drop_table("installations")

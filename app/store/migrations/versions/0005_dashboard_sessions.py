"""dashboard sessions: sign-ins the server can end

Revision ID: 0005_dashboard_sessions
Revises: 0004_human_labels
Create Date: 2026-12-01

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_dashboard_sessions"
down_revision: str | Sequence[str] | None = "0004_human_labels"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dashboard_sessions",
        sa.Column("id_sha256", sa.String(length=64), nullable=False),
        sa.Column("login", sa.String(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id_sha256"),
    )
    op.create_index(
        "ix_dashboard_sessions_expires_at", "dashboard_sessions", ["expires_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_dashboard_sessions_expires_at", table_name="dashboard_sessions")
    op.drop_table("dashboard_sessions")

"""shown survivors and maintainers' "not useful" answers

Revision ID: 0008_survivor_feedback
Revises: 0007_installation_states
Create Date: 2026-12-02

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_survivor_feedback"
down_revision: str | Sequence[str] | None = "0007_installation_states"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _survivor_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("survivor_id", sa.String(length=8), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("operator", sa.String(length=60), nullable=False),
        sa.Column("path", sa.String(length=500), nullable=False),
        sa.Column("place", sa.String(length=300), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "shown_survivors",
        *_survivor_columns(),
        sa.Column("shown_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("repo", "survivor_id"),
    )
    op.create_table(
        "survivor_answers",
        *_survivor_columns(),
        sa.Column("login", sa.String(length=100), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("repo", "survivor_id"),
    )
    op.create_index("ix_survivor_answers_repo", "survivor_answers", ["repo"])


def downgrade() -> None:
    op.drop_index("ix_survivor_answers_repo", table_name="survivor_answers")
    op.drop_table("survivor_answers")
    op.drop_table("shown_survivors")

"""human labels: maintainers' corrections of our labels

Revision ID: 0004_human_labels
Revises: 0003_payload_codec
Create Date: 2026-11-24

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_human_labels"
down_revision: str | Sequence[str] | None = "0003_payload_codec"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "human_labels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("repo", sa.String(length=200), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("dimension", sa.String(length=60), nullable=False),
        sa.Column("human_score", sa.Integer(), nullable=True),
        sa.Column("our_score", sa.Integer(), nullable=True),
        sa.Column("our_votes", sa.JSON(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("prompt_version", sa.String(length=100), nullable=False),
        sa.Column("assessment_id", sa.Integer(), nullable=False),
        sa.Column("login", sa.String(length=100), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("repo", "number", "dimension"),
    )


def downgrade() -> None:
    op.drop_table("human_labels")

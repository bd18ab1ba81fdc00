"""payload codec: deliveries stored compressed

Revision ID: 0003_payload_codec
Revises: 0002_harvest
Create Date: 2026-11-23

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_payload_codec"
down_revision: str | Sequence[str] | None = "0002_harvest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable, no default: rows stored before this revision keep their payloads verbatim.
    op.add_column("deliveries", sa.Column("payload_codec", sa.String(length=10), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deliveries") as batch_op:
        batch_op.drop_column("payload_codec")

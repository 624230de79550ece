"""Games carry the difficulty grade of a winnable deal asked for by difficulty.

Existing games were never started that way: the column starts NULL for all of them.

Revision ID: 0009
Revises: 0003
Create Date: 2026-11-30 23:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("difficulty", sa.String(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("difficulty")

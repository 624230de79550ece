"""Deleted players: tombstones (keyed hashes) of player ids whose data was deleted for good.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 23:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deleted_players",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_deleted_players")),
    )


def downgrade() -> None:
    op.drop_table("deleted_players")

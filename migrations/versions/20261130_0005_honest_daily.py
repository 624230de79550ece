"""The honest daily deal: a private pool of random deals, ranked-attempt records kept without
the player's identity, per-address counters, and whether a daily deal was proved winnable.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 23:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "daily_pool",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("variant", sa.String(length=20), nullable=False),
        sa.Column("deal", sa.Text(), nullable=False),
        sa.Column("line", sa.Text(), nullable=True),
        sa.Column("verified", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_for_day", sa.Date(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_daily_pool")),
        sa.UniqueConstraint(
            "variant", "used_for_day", name=op.f("uq_daily_pool_variant_used_for_day")
        ),
    )
    op.create_index(
        "ix_daily_pool_variant_used", "daily_pool", ["variant", "used_for_day"], unique=False
    )
    op.create_table(
        "ranked_attempts",
        sa.Column("race_id", sa.String(length=32), nullable=False),
        sa.Column("attempt_key", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id"],
            ["races.id"],
            name=op.f("fk_ranked_attempts_race_id_races"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("race_id", "attempt_key", name=op.f("pk_ranked_attempts")),
    )
    op.create_table(
        "address_counters",
        sa.Column("address_key", sa.String(length=64), nullable=False),
        sa.Column("scope", sa.String(length=48), nullable=False),
        sa.Column("window_start", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address_key", "scope", name=op.f("pk_address_counters")),
    )
    with op.batch_alter_table("races") as batch:
        batch.add_column(sa.Column("winnable", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("races") as batch:
        batch.drop_column("winnable")
    op.drop_table("address_counters")
    op.drop_table("ranked_attempts")
    op.drop_index("ix_daily_pool_variant_used", table_name="daily_pool")
    op.drop_table("daily_pool")

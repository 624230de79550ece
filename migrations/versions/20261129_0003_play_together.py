"""Playing together: shared deals (daily deal, challenges), entries, profiles, race events

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:45:25.020254
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "race_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("race_id", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_race_events")),
    )
    op.create_table(
        "player_profiles",
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("display_name", sa.String(length=24), nullable=True),
        sa.Column("on_leaderboards", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_player_profiles_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_player_profiles")),
    )
    op.create_table(
        "races",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("variant", sa.String(length=20), nullable=False),
        sa.Column("day", sa.Date(), nullable=True),
        sa.Column("deal_number", sa.BigInteger(), nullable=True),
        sa.Column("deal", sa.String(length=160), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_races")),
        sa.UniqueConstraint("kind", "variant", "day", name=op.f("uq_races_kind_variant_day")),
        sa.UniqueConstraint("token", name=op.f("uq_races_token")),
    )
    op.create_table(
        "race_entries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("race_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.String(length=32), nullable=True),
        sa.Column("ranked", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("moves", sa.Integer(), nullable=False),
        sa.Column("suits", sa.Integer(), nullable=False),
        sa.Column("assisted", sa.Boolean(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=True),
        sa.Column("verified", sa.String(length=10), nullable=True),
        sa.Column("verified_version", sa.Integer(), nullable=True),
        sa.Column("verified_moves", sa.Integer(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_race_entries_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_race_entries_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["race_id"],
            ["races.id"],
            name=op.f("fk_race_entries_race_id_races"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_race_entries")),
        sa.UniqueConstraint("race_id", "game_id", name=op.f("uq_race_entries_race_id_game_id")),
    )
    with op.batch_alter_table("race_entries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_race_entries_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_race_entries_player_id"), ["player_id"], unique=False)
        batch_op.create_index("ix_race_entries_race_player", ["race_id", "player_id"], unique=False)

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("race_id", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("race_id")

    with op.batch_alter_table("race_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_race_entries_race_player")
        batch_op.drop_index(batch_op.f("ix_race_entries_player_id"))
        batch_op.drop_index(batch_op.f("ix_race_entries_game_id"))

    op.drop_table("race_entries")
    op.drop_table("races")
    op.drop_table("player_profiles")
    op.drop_table("race_events")

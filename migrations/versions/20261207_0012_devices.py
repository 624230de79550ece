"""Devices and link codes: one player on several browsers, without accounts (issue 33).

``devices``: the browsers that reach a player (the cookie carries player id and device id).
Every existing player gets its current cookie as its first device: the id ``first``, which a
cookie from before this revision (the player id alone) stands for; its name is filled in
from the User-Agent on its next request. ``link_codes``: the keyed hashes of one-time codes
that link another device, valid ten minutes.

Revision ID: 0012, revising 0011 (2026-12-07).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0012", "0011"
branch_labels = depends_on = None


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_devices_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", "id", name=op.f("pk_devices")),
    )
    op.create_table(
        "link_codes",
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_link_codes_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("code_hash", name=op.f("pk_link_codes")),
    )
    with op.batch_alter_table("link_codes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_link_codes_player_id"), ["player_id"], unique=False)
    # Every existing player's cookie is its first device (seen when the player was made).
    op.execute(
        "INSERT INTO devices (player_id, id, name, created_at, last_seen_at) "
        "SELECT id, 'first', NULL, created_at, created_at FROM players"
    )


def downgrade() -> None:
    with op.batch_alter_table("link_codes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_link_codes_player_id"))
    op.drop_table("link_codes")
    op.drop_table("devices")

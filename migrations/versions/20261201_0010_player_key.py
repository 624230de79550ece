"""The player key on the move log: ``game_actions.player_id``, the key to shard by.

Every table that holds one player's data carries ``player_id`` except the move log, which
reached its player only through ``games``. Sharding by player (Citus, docs/capacity.md) needs
the key in every row of a distributed table, so it is added now, while it is cheap: backfilled
from the game, then NOT NULL. No foreign key and no index of its own (deleting a player still
reaches the log through ``games`` ON DELETE CASCADE, and an index would cost every move a
second index write); the composite keys a distributed table needs come with the sharding.

Revision ID: 0010, revising 0007 (2026-12-01).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0010", "0007"
branch_labels = depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("player_id", sa.String(length=64), nullable=True))
    op.execute(
        "UPDATE game_actions SET player_id = "
        "(SELECT games.player_id FROM games WHERE games.id = game_actions.game_id)"
    )
    with op.batch_alter_table("game_actions", schema=None) as batch_op:
        batch_op.alter_column("player_id", existing_type=sa.String(length=64), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("game_actions", schema=None) as batch_op:
        batch_op.drop_column("player_id")

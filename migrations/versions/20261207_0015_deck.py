"""The deck's card back, table felt and sounds (issue 41 item 7).

``card_back`` is one of ``blue`` (the deck until now), ``red``, ``green``, ``black``;
``felt`` one of ``green`` (the table until now), ``blue``, ``red``, ``grey``; ``sounds`` is
off unless the player switches it on. Existing rows get the defaults: today's deck, silent.

Revision ID: 0015_deck, revising 0012 (2026-12-07).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0015_deck", "0014_clock"
branch_labels = depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player_settings", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("card_back", sa.String(length=8), nullable=False, server_default="blue")
        )
        batch_op.add_column(
            sa.Column("felt", sa.String(length=8), nullable=False, server_default="green")
        )
        batch_op.add_column(
            sa.Column("sounds", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("player_settings", schema=None) as batch_op:
        batch_op.drop_column("sounds")
        batch_op.drop_column("felt")
        batch_op.drop_column("card_back")

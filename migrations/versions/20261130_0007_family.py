"""The Scorpion family: deals of two and three decks, pile moves in the move log

``games.deal`` and ``races.deal`` become Text (a two-deck deal string is 312 characters, a
three-deck one 468; PostgreSQL enforces a varchar's length). ``game_actions`` gains
``from_pile`` and ``to_pile`` (NULL for a column-to-column move) so a move from a reserve or
to and from a free cell replays exactly.

Revision ID: 0007
Revises: 0009 (chained after the difficulty grades of main)
Create Date: 2026-11-30 23:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ("games", "races"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(
                "deal",
                existing_type=sa.String(length=160),
                type_=sa.Text(),
                existing_nullable=False,
            )
    with op.batch_alter_table("game_actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("from_pile", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("to_pile", sa.String(length=8), nullable=True))


def downgrade() -> None:
    # Games of the family do not fit the old schema: a downgrade removes them (with their
    # move logs, ON DELETE CASCADE) rather than truncating a deal or losing a pile.
    op.execute(
        "DELETE FROM games WHERE id IN (SELECT game_id FROM game_actions "
        "WHERE from_pile IS NOT NULL) OR length(deal) > 160"
    )
    op.execute("DELETE FROM races WHERE length(deal) > 160")
    with op.batch_alter_table("game_actions", schema=None) as batch_op:
        batch_op.drop_column("to_pile")
        batch_op.drop_column("from_pile")
    for table in ("games", "races"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(
                "deal",
                existing_type=sa.Text(),
                type_=sa.String(length=160),
                existing_nullable=False,
            )

"""The game's clock (issue 41): ``games.started_at``, the first move or solver question.

A dealt layout nobody touched is not a game yet (``started_at`` NULL): replacing it counts
neither a start nor an abandonment. Every existing game was counted as started when it was
dealt, so it keeps that: its clock starts at its creation, as it did.

Revision ID: 0014_clock, revising 0012 (2026-12-07).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0014_clock", "0013_coach"
branch_labels = depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE games SET started_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("started_at")

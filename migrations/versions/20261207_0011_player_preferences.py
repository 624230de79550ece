"""Player preferences: language, four-colour deck, theme, larger cards (issue 33).

``locale`` is NULL while the player follows the browser's ``Accept-Language``; otherwise the
language they chose (``en`` or ``zh-CN``). ``theme`` is ``auto`` (follow
``prefers-color-scheme``), ``light`` or ``dark``. Existing rows get the defaults.

Revision ID: 0011, revising 0010 (2026-12-07).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0011", "0010"
branch_labels = depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player_settings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("locale", sa.String(length=16), nullable=True))
        batch_op.add_column(
            sa.Column("four_colour", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(
            sa.Column("theme", sa.String(length=8), nullable=False, server_default="auto")
        )
        batch_op.add_column(
            sa.Column("large_cards", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("player_settings", schema=None) as batch_op:
        batch_op.drop_column("large_cards")
        batch_op.drop_column("theme")
        batch_op.drop_column("four_colour")
        batch_op.drop_column("locale")

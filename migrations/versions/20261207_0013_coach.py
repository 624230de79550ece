"""The solver as a coach (issue 40): proved lines kept per game, and reviews of games.

``solver_lines``: the winning line the solver last proved for a game and the position (a
snapshot) it starts from, so that following the hints reaches the win. ``game_reviews``: the
solver's verdict on every position of a game's log, computed in the background.

Revision ID: 0013_coach, revising 0012 (2026-12-07).
"""

import sqlalchemy as sa
from alembic import op

revision, down_revision = "0013_coach", "0012"
branch_labels = depends_on = None


def upgrade() -> None:
    op.create_table(
        "solver_lines",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("start", sa.Text(), nullable=False),
        sa.Column("line", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_solver_lines_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_solver_lines")),
    )
    op.create_table(
        "game_reviews",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("steps", sa.Integer(), nullable=False),
        sa.Column("verdicts", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("line", sa.Text(), nullable=True),
        sa.Column("line_step", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("heartbeat", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_reviews_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_game_reviews")),
    )


def downgrade() -> None:
    op.drop_table("game_reviews")
    op.drop_table("solver_lines")

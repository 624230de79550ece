"""Assistance and moves made (docs/rules.md, "Assistance"): games.moves_made, and the rows that
now count moves made.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 23:45:00

What the upgrade does to existing rows
--------------------------------------
- ``games.moves_made`` (new, NOT NULL, server default 0) is backfilled from the move log: the
  number of ``move`` and ``deal`` rows of the game in ``game_actions`` (every move and deal
  performed, undone ones included; undo and redo rows are not counted). The log has always
  held every accepted action, so this is exact.
- ``race_entries.moves`` now holds moves made (races and rankings compare moves made): set from
  the game's ``moves_made`` where the game still exists; entries whose game was deleted keep
  their old (net) count, which no leaderboard ranks anyway. ``verified_moves`` of entries the
  server verified (``verified = 'ok'``) is recounted the same way from the log.
- ``stat_events.moves`` of wins becomes the game's moves made (a won game never changes
  again); of abandonments, the moves and deals logged up to the moment of the abandonment.
  Events whose game is gone keep their old count.
- ``assisted`` (games and race entries) is kept exactly as it is, conservatively. Before this
  revision a game was marked assisted by the plain hint, by undo *and* by the solver; the
  database cannot tell which was used (neither a hint nor a solver question leaves a row), so
  clearing the mark could pass off a solver-assisted game as unassisted. A game marked before
  this revision therefore stays assisted; from now on only the solver marks a game.
- ``variant_stats.best_time_seconds`` and ``fewest_moves`` are recomputed from the recorded
  wins (``stat_events``, kind ``win``) whose game still exists and is not assisted: the
  fastest time and the fewest moves made. Where no such win is left they become NULL (old
  records set by assisted wins, or by wins whose game row is gone and cannot be judged, do not
  survive). Everything else in ``variant_stats`` is unchanged.

The tables that games' rows are referenced by (``game_actions``, ``stat_events``,
``race_entries``) must never be rebuilt on SQLite (dropping ``games`` with ``foreign_keys=ON``
would cascade), so both directions use plain ``ALTER TABLE`` (``recreate="never"``).

Downgrade drops ``games.moves_made``; the recounted moves and statistics stay as they are.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MADE_KINDS = ("move", "deal")

games = sa.table(
    "games",
    sa.column("id", sa.String()),
    sa.column("moves_made", sa.Integer()),
    sa.column("assisted", sa.Boolean()),
)
actions = sa.table(
    "game_actions",
    sa.column("game_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
entries = sa.table(
    "race_entries",
    sa.column("game_id", sa.String()),
    sa.column("moves", sa.Integer()),
    sa.column("verified", sa.String()),
    sa.column("verified_moves", sa.Integer()),
)
events = sa.table(
    "stat_events",
    sa.column("player_id", sa.String()),
    sa.column("game_id", sa.String()),
    sa.column("variant", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("moves", sa.Integer()),
    sa.column("seconds", sa.Integer()),
    sa.column("at", sa.DateTime(timezone=True)),
)
stats = sa.table(
    "variant_stats",
    sa.column("player_id", sa.String()),
    sa.column("variant", sa.String()),
    sa.column("best_time_seconds", sa.Integer()),
    sa.column("fewest_moves", sa.Integer()),
)


def upgrade() -> None:
    with op.batch_alter_table("games", recreate="never") as batch_op:
        batch_op.add_column(
            sa.Column("moves_made", sa.Integer(), server_default=sa.text("0"), nullable=False)
        )

    # games.moves_made: the moves and deals of the game's log.
    made = (
        sa.select(sa.func.count())
        .select_from(actions)
        .where(actions.c.game_id == games.c.id, actions.c.kind.in_(MADE_KINDS))
        .scalar_subquery()
    )
    op.execute(games.update().values(moves_made=made))

    # race_entries: moves made, and the verified wins' moves made.
    game_made = (
        sa.select(games.c.moves_made).where(games.c.id == entries.c.game_id).scalar_subquery()
    )
    game_exists = sa.exists().where(games.c.id == entries.c.game_id)
    op.execute(entries.update().where(game_exists).values(moves=game_made))
    op.execute(
        entries.update()
        .where(game_exists, entries.c.verified == "ok")
        .values(verified_moves=game_made)
    )

    # stat_events: a win's moves made; an abandonment's moves made up to that moment.
    event_game_made = (
        sa.select(games.c.moves_made).where(games.c.id == events.c.game_id).scalar_subquery()
    )
    event_game_exists = sa.exists().where(games.c.id == events.c.game_id)
    op.execute(
        events.update()
        .where(events.c.kind == "win", event_game_exists)
        .values(moves=event_game_made)
    )
    made_before = (
        sa.select(sa.func.count())
        .select_from(actions)
        .where(
            actions.c.game_id == events.c.game_id,
            actions.c.kind.in_(MADE_KINDS),
            actions.c.created_at <= events.c.at,
        )
        .scalar_subquery()
    )
    op.execute(
        events.update()
        .where(events.c.kind == "abandon", event_game_exists)
        .values(moves=made_before)
    )

    # variant_stats: best time and fewest moves (made) of the unassisted wins only.
    def best(column: sa.ColumnElement[int]) -> sa.ScalarSelect[int]:
        return (
            sa.select(sa.func.min(column))
            .select_from(events.join(games, games.c.id == events.c.game_id))
            .where(
                events.c.player_id == stats.c.player_id,
                events.c.variant == stats.c.variant,
                events.c.kind == "win",
                games.c.assisted == sa.false(),
            )
            .scalar_subquery()
        )

    op.execute(
        stats.update().values(
            best_time_seconds=best(events.c.seconds), fewest_moves=best(events.c.moves)
        )
    )


def downgrade() -> None:
    with op.batch_alter_table("games", recreate="never") as batch_op:
        batch_op.drop_column("moves_made")

"""Assistance and moves made at the service level (docs/rules.md, "Assistance"), on SQLite and
PostgreSQL: only the solver marks a game assisted (the plain hint, undo and redo do not);
moves made counts every move and deal performed, undone ones included, and not undo or redo;
best time and fewest moves come from unassisted wins only; rankings use moves made."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app import services
from app.db.models import GameRow, StatEvent
from app.engine import DEFAULT_VARIANT, Action
from app.services import GameState, analysis, challenges, profiles
from app.services.leaderboard import leaderboard
from app.services.race import standings
from tests.support.deals import WIN_DEAL, WIN_LINE


def new_player() -> str:
    return f"svc-{uuid.uuid4().hex}"


def stored(db: Session, game_id: str) -> tuple[bool, int, int]:
    """(assisted, moves_made, moves) as stored in the game's row."""
    try:
        row = db.execute(select(GameRow).where(GameRow.id == game_id)).scalar_one()
        return row.assisted, row.moves_made, row.moves
    finally:
        db.rollback()


def play_out(db: Session, player: str, state: GameState, actions: list[Action]) -> GameState:
    for action in actions:
        state = services.act(db, player, state.id, action)
    return state


# -- what marks a game assisted ----------------------------------------------------------------


def test_the_plain_hint_does_not_mark_the_game_assisted(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    result = services.hints(db, player, state.id)
    assert result.moves and result.can_deal
    services.hints(db, player, state.id, count=False)
    assert services.get_game(db, player, state.id) == state
    assert stored(db, state.id) == (False, 0, 0)


def test_undo_and_redo_do_not_mark_the_game_assisted(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    services.act(db, player, state.id, WIN_LINE[0])
    undone = services.undo(db, player, state.id)
    redone = services.redo(db, player, state.id)
    assert not undone.assisted and not redone.assisted
    assert stored(db, state.id)[0] is False


def test_a_solver_question_marks_the_game_assisted_from_then_on(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    analysis.prepare(db, player, state.id)  # the question's checks: nothing marked yet
    assert not services.get_game(db, player, state.id).assisted
    analysis.mark_assisted(db, player, state.id)  # the solver answered (win or loss)
    assert services.get_game(db, player, state.id).assisted
    after = play_out(db, player, state, [WIN_LINE[0], ("undo",), ("redo",)])
    assert after.assisted and stored(db, state.id)[0] is True


# -- moves made --------------------------------------------------------------------------------


def test_moves_made_counts_undone_moves_and_deals_but_not_undo_or_redo(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    assert state.moves_made == 0
    deal, first = WIN_LINE[0], WIN_LINE[1]
    state = play_out(db, player, state, [deal, first])
    assert (state.moves_made, state.view.moves) == (2, 2)
    state = play_out(db, player, state, [("undo",), ("undo",)])  # both taken back
    assert (state.moves_made, state.view.moves) == (2, 0)
    state = play_out(db, player, state, [("redo",)])  # redo is not a move made
    assert (state.moves_made, state.view.moves) == (2, 1)
    state = play_out(db, player, state, [first])  # played again: counted again
    assert (state.moves_made, state.view.moves) == (3, 2)
    assert stored(db, state.id) == (False, 3, 2)
    assert services.get_game(db, player, state.id).moves_made == 3


def test_a_refused_action_adds_no_move_made(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    with pytest.raises(services.ActionRefused):
        services.move(db, player, state.id, 6, 0, 5)  # a King never lands on a card
    assert stored(db, state.id) == (False, 0, 0)


# -- statistics --------------------------------------------------------------------------------


def test_best_time_and_fewest_moves_ignore_assisted_wins(db: Session) -> None:
    player = new_player()
    helped = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    analysis.prepare(db, player, helped.id)
    analysis.mark_assisted(db, player, helped.id)
    helped = play_out(db, player, helped, WIN_LINE)
    assert helped.status == "won" and helped.assisted
    stats = services.get_stats(db, player).variants[DEFAULT_VARIANT]
    assert (stats.won, stats.assisted_won) == (1, 1)  # a win, shown apart
    assert stats.best_time_seconds is None and stats.fewest_moves is None

    # An unassisted win that explored with undo: fewest moves is its moves made.
    clean = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    clean = play_out(db, player, clean, [WIN_LINE[0], ("undo",), *WIN_LINE])
    assert clean.status == "won" and not clean.assisted
    assert (clean.moves_made, clean.view.moves) == (len(WIN_LINE) + 1, len(WIN_LINE))
    stats = services.get_stats(db, player).variants[DEFAULT_VARIANT]
    assert (stats.won, stats.assisted_won) == (2, 1)
    assert stats.fewest_moves == len(WIN_LINE) + 1
    assert stats.best_time_seconds is not None

    # A later assisted win with fewer moves made does not lower it.
    again = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    analysis.prepare(db, player, again.id)
    analysis.mark_assisted(db, player, again.id)
    play_out(db, player, again, WIN_LINE)
    stats = services.get_stats(db, player).variants[DEFAULT_VARIANT]
    assert (stats.won, stats.assisted_won) == (3, 2)
    assert stats.fewest_moves == len(WIN_LINE) + 1
    try:
        moves = db.execute(
            select(StatEvent.moves).where(StatEvent.game_id == clean.id, StatEvent.kind == "win")
        ).scalar_one()
    finally:
        db.rollback()
    assert moves == len(WIN_LINE) + 1  # the result history shows moves made too


# -- rankings ----------------------------------------------------------------------------------


def test_rankings_use_moves_made_and_undo_is_not_assistance(db: Session) -> None:
    ann, bob = new_player(), new_player()
    profiles.update_profile(db, ann, display_name="Ann", on_leaderboards=True)
    profiles.update_profile(db, bob, display_name="Bob", on_leaderboards=True)
    start = services.create_game(db, ann, DEFAULT_VARIANT, deal=WIN_DEAL)
    challenge = challenges.create_challenge(db, ann, start.id)
    # Bob explores with undo first: his win costs two more moves made, and is unassisted.
    bob_game, _ = challenges.play_challenge(db, bob, challenge.token)
    bob_state = play_out(db, bob, bob_game, [WIN_LINE[0], WIN_LINE[1], ("undo",), ("undo",)])
    assert [(p.name, p.moves) for p in standings(db, challenge.race_id)] == [
        ("Ann", 0),
        ("Bob", 2),
    ]
    play_out(db, bob, bob_state, WIN_LINE)
    play_out(db, ann, start, WIN_LINE)

    board = leaderboard(db, challenge.race_id, ann)
    assert [(e.name, e.rank, e.moves) for e in board.wins] == [
        ("Ann", 1, len(WIN_LINE)),
        ("Bob", 2, len(WIN_LINE) + 2),
    ]
    assert board.assisted == [] and board.rejected == 0
    sides = challenges.comparison(db, challenge.token, ann)
    assert [(s.name, s.moves, s.assisted) for s in sides] == [
        ("Ann", len(WIN_LINE), False),
        ("Bob", len(WIN_LINE) + 2, False),
    ]

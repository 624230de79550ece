"""Game rules at the service level, on SQLite and PostgreSQL (real databases, never mocked):
one transaction per action (load -> engine -> persist), refused actions change nothing, the
version guards against stale tabs, another player's game is not found, and the state a
service returns never carries a face-down or stock card."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy.orm import Session

from app import services
from app.engine import DEFAULT_VARIANT, Game, code, parse_deal
from app.services import ActionRefused, NotFound, VersionConflict
from app.services.common import read_tx
from app.services.game_core import game_state, load_game
from tests.support.deals import WIN_DEAL, WIN_LINE


def new_player() -> str:
    return f"svc-{uuid.uuid4().hex}"


def test_a_legal_move_is_persisted_and_bumps_the_version(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    assert state.version == 1 and state.status == "playing"
    action = WIN_LINE[0]
    after = services.act(db, player, state.id, action, expected_version=1)
    assert after.version == 2
    expected = Game.replay(DEFAULT_VARIANT, parse_deal(WIN_DEAL), [action]).public_view()
    assert after.view == expected
    # Read back in a fresh transaction: what the service returned is what was stored.
    assert services.get_game(db, player, state.id) == after
    assert services.action_log(db, player, state.id) == [action]


def test_a_refused_move_changes_nothing(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    with pytest.raises(ActionRefused):
        services.move(db, player, state.id, 6, 0, 5)  # a King never lands on a card
    assert services.get_game(db, player, state.id) == state
    assert services.action_log(db, player, state.id) == []


def test_a_stale_version_is_a_conflict_and_changes_nothing(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    moved = services.act(db, player, state.id, WIN_LINE[0], expected_version=1)
    with pytest.raises(VersionConflict) as err:
        services.act(db, player, state.id, WIN_LINE[1], expected_version=1)
    assert err.value.current_version == 2
    assert services.get_game(db, player, state.id) == moved


def test_undo_restores_the_position(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    services.act(db, player, state.id, WIN_LINE[0])
    undone = services.undo(db, player, state.id)
    assert undone.view.columns == state.view.columns
    assert services.redo(db, player, state.id).view.moves == 1


def test_another_players_game_is_not_found(db: Session) -> None:
    owner, other = new_player(), new_player()
    state = services.create_game(db, owner, DEFAULT_VARIANT, deal=WIN_DEAL)
    with pytest.raises(NotFound):
        services.get_game(db, other, state.id)
    with pytest.raises(NotFound):
        services.act(db, other, state.id, WIN_LINE[0])
    assert services.get_game(db, owner, state.id) == state


def test_winning_line_wins_and_counts_in_the_statistics(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    for action in WIN_LINE:
        state = services.act(db, player, state.id, action)
    assert state.status == "won" and state.finished_at is not None
    scorpion = services.get_stats(db, player).variants[DEFAULT_VARIANT]
    assert scorpion.started == 1 and scorpion.won == 1 and scorpion.current_streak == 1


def test_a_new_game_supersedes_the_unfinished_one(db: Session) -> None:
    player = new_player()
    first = services.create_game(db, player, DEFAULT_VARIANT, deal=WIN_DEAL)
    second = services.create_game(db, player, DEFAULT_VARIANT, deal_number=7)
    assert services.get_game(db, player, first.id).abandoned
    assert services.resume_game(db, player, DEFAULT_VARIANT) == second


def test_game_state_never_carries_a_hidden_card(db: Session) -> None:
    player = new_player()
    state = services.create_game(db, player, DEFAULT_VARIANT, deal_number=1)
    with read_tx(db):
        row = load_game(db, player, state.id)
        game = Game.from_snapshot(row.snapshot)
        shown = game_state(row)
    assert shown == state
    hidden = {code(c) for col, h in zip(game.cols, game.hidden, strict=True) for c in col[:h]}
    hidden |= {code(c) for c in game.stock}
    assert len(hidden) == 4 * 3 + 3  # three face down in each of the first four columns
    for col, h in zip(shown.view.columns, game.hidden, strict=True):
        assert col[:h] == [None] * h and None not in col[h:]
    shown_codes = {c for col in shown.view.columns for c in col if c}
    assert not shown_codes & hidden and shown.view.stock == 3  # a count, not the cards

"""Snapshots: the compact stored form of a game, stable across versions."""

from __future__ import annotations

import pytest

from app.engine import Game, SnapshotError, deal_from_number


def _play() -> Game:
    """Deal 1, the first hint move, the deal, then an undo of the deal."""
    game = Game.new("scorpion", deal_from_number(1))
    game.move(3, 5, 0)
    game.deal()
    game.undo()
    return game


def test_snapshot_round_trip_keeps_position_and_history() -> None:
    game = _play()
    again = Game.from_snapshot(game.to_snapshot())
    assert again.position_key() == game.position_key()
    assert again.history == game.history and again.future == game.future
    again.redo()
    game.redo()
    assert again.position_key() == game.position_key()


def test_snapshot_format_is_stable() -> None:
    assert _play().to_snapshot() == (
        '{"v":1,"variant":"scorpion","cols":[[19,8,16,33,20,43,23,22,46],'
        "[18,47,10,17,25,2,14],[36,30,32,29,1,13,44],[12,38,35,48,49],[11,42,5,6,39,4,26],"
        '[51,31,50,37,24,21,15],[41,0,3,27,7,9,28]],"hidden":[3,3,3,3,0,0,0],'
        '"stock":[40,34,45],"done":[],"hist":[16470],"fut":[1]}'
    )


def test_unknown_snapshot_version_is_refused() -> None:
    text = _play().to_snapshot().replace('"v":1', '"v":99')
    with pytest.raises(SnapshotError, match="unknown snapshot version"):
        Game.from_snapshot(text)


@pytest.mark.parametrize("text", ["", "not json", "{}", '{"v":1}', "[1,2]"])
def test_unreadable_snapshots_are_refused(text: str) -> None:
    with pytest.raises(SnapshotError):
        Game.from_snapshot(text)


def test_a_snapshot_missing_a_card_is_refused() -> None:
    broken = _play().to_snapshot().replace("[[19,", "[[", 1)
    with pytest.raises(SnapshotError, match="each card exactly once"):
        Game.from_snapshot(broken)

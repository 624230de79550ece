"""Whole games: known winning lines play through to a win, and the win is final."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.engine import Game, GameFinished, parse_deal

KNOWN = json.loads((Path(__file__).parents[1] / "data" / "known_wins.json").read_text())


@pytest.mark.parametrize("case", KNOWN, ids=lambda c: c["deal"][:11])
def test_known_winning_line_wins(case: dict) -> None:
    game = Game.new(case["variant"], parse_deal(case["deal"]))
    for k, action in enumerate(case["line"]):
        assert game.status == "playing", f"won early, at step {k}"
        game.apply(tuple(action))
    assert game.status == "won"
    assert sorted(game.public_view().completed) == ["C", "D", "H", "S"]
    assert all(not col for col in game.cols)
    with pytest.raises(GameFinished):
        game.undo()

"""The one-tap destinations rendered into the play page agree with the engine's legal moves."""

from __future__ import annotations

import random

import pytest

from app.engine import Game, get_variant
from app.engine.deals import deal_from_number
from app.web.view import legal_targets


def _engine_targets(game: Game) -> str:
    view = game.public_view()
    out: dict[tuple[int, int], list[int]] = {}
    for m in game.legal_moves():
        # A whole column into an empty one: only offered when it changes what the deal
        # reaches (the engine's hints say the same).
        if not view.columns[m.to_column] and m.from_index == 0 and m not in game.hints():
            continue
        out.setdefault((m.from_column, m.from_index), []).append(m.to_column)
    return " ".join(
        f"{c}.{i}:{','.join(str(t) for t in sorted(ts))}" for (c, i), ts in sorted(out.items())
    )


@pytest.mark.parametrize("variant", ["scorpion", "scorpion-ii", "wasp"])
def test_targets_match_the_engine_along_random_games(variant: str) -> None:
    rng = random.Random(7)
    v = get_variant(variant)
    checked = 0
    for n in range(1, 40):
        game = Game.new(variant, deal_from_number(n))
        for _ in range(80):
            view = game.public_view()
            assert legal_targets(view, v.empty_accepts_any) == _engine_targets(game)
            checked += 1
            moves = game.legal_moves()
            if moves and (not game.can_deal or rng.random() < 0.85):
                m = rng.choice(moves)
                game.move(m.from_column, m.from_index, m.to_column)
            elif game.can_deal:
                game.deal()
            else:
                break
            if game.won:
                break
    assert checked > 500


def test_targets_name_only_face_up_cards() -> None:
    game = Game.new("scorpion", deal_from_number(1))
    view = game.public_view()
    for item in legal_targets(view, False).split():
        c, i = (int(x) for x in item.split(":")[0].split("."))
        assert view.columns[c][i] is not None

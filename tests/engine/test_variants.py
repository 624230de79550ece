"""Variants are data: one engine plays scorpion, scorpion-ii and wasp."""

from __future__ import annotations

import pytest

from app.engine import ALL_VARIANTS, Game, IllegalMove, Move, deal_from_number, get_variant
from tests.support.cards import codes, make_game


def test_the_variants_are_known_by_name() -> None:
    assert {"scorpion", "scorpion-ii", "wasp"} <= set(ALL_VARIANTS)
    with pytest.raises(KeyError):
        get_variant("spider")


def test_scorpion_ii_hides_cards_only_in_the_first_three_columns() -> None:
    view = Game.new("scorpion-ii", deal_from_number(3)).public_view()
    for c in range(3):
        assert view.columns[c][:3] == [None, None, None]
    for c in range(3, 7):
        assert None not in view.columns[c]


def test_scorpion_ii_empty_column_still_takes_only_a_king() -> None:
    game = make_game({0: "", 1: "5C QH"}, variant="scorpion-ii")
    with pytest.raises(IllegalMove):
        game.move(1, 1, 0)


def test_wasp_empty_column_accepts_any_card_or_group() -> None:
    game = make_game({0: "", 1: "5C QH 3D"}, variant="wasp")
    assert Move(1, 1, 0) in game.hints()
    game.move(1, 1, 0)
    assert codes(game, 0) == ["QH", "3D"]


def test_wasp_keeps_the_other_rules() -> None:
    game = make_game({0: "8S", 1: "7H", 2: "AD", 3: "KC"}, variant="wasp")
    with pytest.raises(IllegalMove):
        game.move(1, 0, 0)
    with pytest.raises(IllegalMove):
        game.move(3, 0, 2)


def test_wasp_whole_column_to_empty_column_follows_the_same_usefulness_rule() -> None:
    game = make_game({4: "", 5: "7D"}, variant="wasp")
    assert Move(5, 0, 4) in game.legal_moves()
    assert Move(5, 0, 4) not in game.hints()

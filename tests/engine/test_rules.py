"""RULES.md, point by point. Each test names the rule it pins."""

from __future__ import annotations

import pytest

from app.engine import (
    Game,
    GameFinished,
    IllegalMove,
    Move,
    NothingToRedo,
    NothingToUndo,
    StockEmpty,
    deal_from_number,
)
from tests.support.cards import codes, make_game

RUN_S = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"  # spades King..Two; the Ace completes it


# -- Layout ---------------------------------------------------------------------------


def test_layout_seven_columns_of_seven_and_three_in_stock() -> None:
    game = Game.new("scorpion", deal_from_number(5))
    view = game.public_view()
    assert [len(c) for c in view.columns] == [7] * 7
    assert view.stock == 3
    assert sorted(game.all_cards()) == list(range(52))


def test_layout_first_four_columns_three_face_down_rest_face_up() -> None:
    view = Game.new("scorpion", deal_from_number(5)).public_view()
    for c in range(4):
        assert view.columns[c][:3] == [None, None, None]
        assert None not in view.columns[c][3:]
    for c in range(4, 7):
        assert None not in view.columns[c]


# -- Moving cards ---------------------------------------------------------------------


def test_any_face_up_card_moves_with_every_card_on_it_in_any_order() -> None:
    game = make_game({0: "8H", 1: "KC 7H 2D QS 5C"})
    game.move(1, 1, 0)
    assert codes(game, 0)[-5:] == ["8H", "7H", "2D", "QS", "5C"]
    assert codes(game, 1)[-1] == "KC"


def test_seven_of_hearts_lands_on_eight_of_hearts() -> None:
    game = make_game({0: "8H", 1: "7H"})
    game.move(1, 0, 0)
    assert codes(game, 0)[-2:] == ["8H", "7H"]


def test_seven_of_hearts_never_lands_on_eight_of_spades() -> None:
    game = make_game({0: "8S", 1: "7H"})
    before = game.position_key()
    with pytest.raises(IllegalMove, match="The seven of hearts can only go on the eight of hearts"):
        game.move(1, 0, 0)
    assert game.position_key() == before


def test_only_the_leading_card_is_checked_and_must_be_one_rank_lower() -> None:
    game = make_game({0: "9H", 1: "7H 8H"})
    with pytest.raises(IllegalMove):
        game.move(1, 0, 0)  # 7H on 9H: two ranks apart
    game.move(1, 1, 0)  # 8H on 9H
    assert codes(game, 0)[-2:] == ["9H", "8H"]


def test_a_king_never_lands_on_another_card() -> None:
    game = make_game({0: "AS", 1: "KH"})
    with pytest.raises(IllegalMove, match="King can only move to an empty column"):
        game.move(1, 0, 0)


def test_empty_column_refuses_a_group_led_by_a_queen() -> None:
    game = make_game({0: "", 1: "5C QH JH"})
    with pytest.raises(IllegalMove, match="Only a King, or a group led by a King"):
        game.move(1, 1, 0)


def test_empty_column_accepts_an_unordered_group_led_by_a_king() -> None:
    game = make_game({0: "", 1: "5C KH 2S 9D"})
    game.move(1, 1, 0)
    assert codes(game, 0) == ["KH", "2S", "9D"]


def test_a_face_down_card_cannot_be_moved() -> None:
    game = Game.new("scorpion", deal_from_number(1))
    with pytest.raises(IllegalMove, match="face-down"):
        game.move(0, 2, 4)


def test_moving_to_its_own_or_a_missing_column_is_refused() -> None:
    game = make_game({0: "8H", 1: "7H"})
    with pytest.raises(IllegalMove):
        game.move(1, 0, 1)
    with pytest.raises(IllegalMove):
        game.move(1, 0, 7)
    with pytest.raises(IllegalMove):
        game.move(1, 5, 0)


def test_whole_column_led_by_a_king_may_move_to_an_empty_column() -> None:
    game = make_game({0: "", 5: "KD 4C", 1: "3H"}, stock="2H 2C 2D")
    game.move(5, 0, 0)
    assert codes(game, 0) == ["KD", "4C"]
    assert codes(game, 5) == []


def test_whole_column_king_move_hinted_only_with_stock_and_a_first_three_column() -> None:
    # Columns 0 and 4 empty, a whole King column in 5: with stock, moving it to 0 matters
    # (the deal then lands differently), moving it to 4 changes nothing.
    game = make_game({0: "", 4: "", 5: "KD 4C"}, stock="2H 2C 2D")
    hints = set(game.hints())
    assert Move(5, 0, 0) in hints
    assert Move(5, 0, 4) not in hints
    assert Move(5, 0, 4) in set(game.legal_moves())
    # Without stock, no whole-column move is useful.
    game = make_game({0: "", 4: "", 5: "KD 4C"})
    assert not [m for m in game.hints() if m.from_index == 0 and m.from_column == 5]
    # A King with cards under it is always worth moving.
    game = make_game({4: "", 5: "3C KD 4C"})
    assert Move(5, 1, 4) in set(game.hints())


# -- Revealing ------------------------------------------------------------------------


def test_a_face_down_card_turns_up_when_the_last_card_above_it_leaves() -> None:
    game = make_game({0: "8H", 1: "5S 6D 7H"}, hidden={1: 2})
    game.move(1, 2, 0)
    assert codes(game, 1) == [None, "6D"]


def test_undo_turns_a_revealed_card_face_down_again() -> None:
    game = make_game({0: "8H", 1: "5S 6D 7H"}, hidden={1: 2})
    before = game.position_key()
    game.move(1, 2, 0)
    game.undo()
    assert codes(game, 1) == [None, None, "7H"]
    assert game.position_key() == before


# -- The stock ------------------------------------------------------------------------


def test_deal_puts_one_card_on_each_of_the_first_three_columns_in_order() -> None:
    game = make_game({0: "9C", 1: "9D", 2: "9S"}, stock="2H 3H 4H")
    game.deal()
    assert [codes(game, c)[-1] for c in range(3)] == ["2H", "3H", "4H"]
    assert game.public_view().stock == 0


def test_deal_lands_on_empty_columns_too() -> None:
    game = make_game({0: "", 1: "", 2: "9S"}, stock="2H 3H 4H")
    game.deal()
    assert codes(game, 0) == ["2H"]
    assert codes(game, 1) == ["3H"]


def test_the_stock_is_dealt_once() -> None:
    game = make_game({0: "9C"}, stock="2H 3H 4H")
    game.deal()
    with pytest.raises(StockEmpty):
        game.deal()


def test_the_deal_is_one_undoable_step() -> None:
    game = make_game({0: "9C", 1: "9D", 2: "9S"}, stock="2H 3H 4H")
    before = game.position_key()
    game.deal()
    assert game.moves == 1
    game.undo()
    assert game.position_key() == before
    assert game.public_view().stock == 3


# -- Completing a suit ----------------------------------------------------------------


def test_a_completed_run_is_removed_as_part_of_the_move() -> None:
    game = make_game({0: RUN_S, 1: "4D AS"})
    game.move(1, 1, 0)
    view = game.public_view()
    assert view.completed == ["S"]
    assert view.columns[0] == []
    assert game.moves == 1


def test_a_run_completed_by_the_deal_is_removed() -> None:
    game = make_game({1: RUN_S}, stock="9C AS 9D")
    game.deal()
    assert game.public_view().completed == ["S"]
    assert codes(game, 1) == []


def test_a_run_uncovered_in_the_source_column_is_removed() -> None:
    # A run whose Ace is covered by a dealt card completes when that card leaves.
    game = make_game({0: RUN_S + " AS 5H", 3: "6H"})
    game.move(0, 13, 3)
    assert game.public_view().completed == ["S"]


def test_after_a_run_is_removed_an_exposed_face_down_card_turns_up() -> None:
    game = make_game({0: "7C " + RUN_S, 1: "AS"}, hidden={0: 1})
    game.move(1, 0, 0)
    assert codes(game, 0) == ["7C"]
    game.undo()
    assert codes(game, 0)[0] is None
    assert len(codes(game, 0)) == 13


RUN_D = "KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D"  # diamonds King..Two


def test_a_run_left_at_the_open_end_by_a_removal_is_removed_too() -> None:
    # The Ace of spades, with the diamonds King..Two built on it, joins the spades: the spade
    # run is complete but covered. The Ace of diamonds completes the diamonds at the open end;
    # when they go, the spade run lies at the open end, a completed run, and goes with them.
    game = make_game({0: "7C " + RUN_S, 1: "AS " + RUN_D, 2: "AD"}, hidden={0: 1})
    game.move(1, 0, 0)
    assert game.public_view().completed == []
    before = game.position_key()
    game.move(2, 0, 0)
    view = game.public_view()
    assert view.completed == ["D", "S"]
    assert codes(game, 0) == ["7C"]  # the card under both runs turned up
    assert game.moves == 2
    game.undo()
    assert game.position_key() == before
    assert codes(game, 0)[0] is None and codes(game, 2) == ["AD"]
    game.redo()
    assert game.public_view().completed == ["D", "S"]
    assert codes(game, 0) == ["7C"]


def test_a_run_uncovered_by_a_removal_in_the_source_column_is_removed_too() -> None:
    game = make_game({0: RUN_S + " AS " + RUN_D + " AD 5H", 3: "6H"})
    before = game.position_key()
    game.move(0, 26, 3)
    assert game.public_view().completed == ["D", "S"]
    assert codes(game, 0) == []
    game.undo()
    assert game.position_key() == before


def test_a_deal_that_completes_a_run_on_a_completed_run_removes_both() -> None:
    game = make_game({1: RUN_S + " AS " + RUN_D}, stock="9C AD 9H")
    before = game.position_key()
    game.deal()
    assert game.public_view().completed == ["D", "S"]
    assert codes(game, 1) == []
    game.undo()
    assert game.position_key() == before
    assert game.public_view().stock == 3


def test_runs_removed_together_can_win_the_game() -> None:
    game = make_game({0: RUN_S, 1: "AS " + RUN_D, 2: "AD"}, completed="H C")
    game.move(1, 0, 0)
    assert game.status == "playing"
    game.move(2, 0, 0)
    assert game.status == "won"


def test_three_runs_can_leave_at_one_step_and_come_back_with_one_undo() -> None:
    # Wasp deal 33's catalogued line: at its 56th step the spades leave, then the diamonds
    # and the clubs they had covered, one under the other.
    from app.engine import deal_from_number
    from app.engine.solver.catalogs import winning_line

    line = winning_line("wasp", 33)
    assert line is not None
    game = Game.replay("wasp", deal_from_number(33, "wasp"), line[:55])
    before = game.position_key()
    assert len(game.public_view().completed) == 0
    game.apply(line[55])
    assert game.public_view().completed == ["S", "D", "C"]
    game.undo()
    assert game.position_key() == before
    game.redo()
    assert game.public_view().completed == ["S", "D", "C"]


def test_an_unordered_group_of_thirteen_of_one_suit_is_not_a_run() -> None:
    shuffled = "KS JS QS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    game = make_game({0: shuffled, 1: "AS"})
    game.move(1, 0, 0)
    assert game.public_view().completed == []
    assert len(codes(game, 0)) == 13


def test_a_run_with_a_face_down_card_is_not_removed() -> None:
    game = make_game({0: RUN_S, 1: "AS"}, hidden={0: 1})
    game.move(1, 0, 0)
    assert game.public_view().completed == []


def test_four_removed_runs_win_the_game() -> None:
    game = make_game({0: RUN_S, 1: "AS"}, completed="H D C")
    assert game.status == "playing"
    game.move(1, 0, 0)
    assert game.status == "won"
    assert game.hints() == []
    for action in (game.undo, game.redo, game.deal):
        with pytest.raises(GameFinished):
            action()
    with pytest.raises(GameFinished):
        game.move(0, 0, 1)


# -- Help for the player ---------------------------------------------------------------


def test_hints_list_the_deal_while_the_stock_holds_cards() -> None:
    game = make_game({0: "9C"}, stock="2H 3H 4H")
    assert game.can_deal and not game.stuck
    game.deal()
    assert not game.can_deal


def test_stuck_when_no_useful_move_and_no_stock() -> None:
    game = make_game({0: "9C", 1: "2H", 2: "4D", 3: "JS", 4: "5H", 5: "QD"})
    assert game.hints() == []
    assert game.stuck


def test_undo_steps_back_one_at_a_time_to_the_opening_layout() -> None:
    game = Game.new("scorpion", deal_from_number(1))
    opening = game.position_key()
    keys = [opening]
    for _ in range(6):
        hints = game.hints()
        if hints:
            game.move(*hints[0])
        else:
            game.deal()
        keys.append(game.position_key())
    for expected in reversed(keys[:-1]):
        game.undo()
        assert game.position_key() == expected
    with pytest.raises(NothingToUndo):
        game.undo()
    assert game.position_key() == opening


def test_redo_takes_back_an_undo_and_a_new_move_clears_redo() -> None:
    game = make_game({0: "8H", 1: "7H", 2: "6H"})
    game.move(1, 0, 0)
    after = game.position_key()
    game.undo()
    assert game.can_redo
    game.redo()
    assert game.position_key() == after
    with pytest.raises(NothingToRedo):
        game.redo()
    game.undo()
    game.move(2, 0, 1)
    assert not game.can_redo


def test_replay_starts_the_same_deal_from_the_opening_layout() -> None:
    deal = deal_from_number(77)
    game = Game.new("scorpion", deal)
    game.move(*game.hints()[0])
    again = Game.new(game.variant, deal)
    assert again.position_key() == Game.new("scorpion", deal).position_key()
    assert again.moves == 0


def test_error_messages_are_sentences_for_players() -> None:
    game = make_game({0: "8S", 1: "7H"})
    with pytest.raises(IllegalMove) as err:
        game.move(1, 0, 0)
    assert str(err.value) == (
        "The seven of hearts can only go on the eight of hearts, not on the eight of spades."
    )

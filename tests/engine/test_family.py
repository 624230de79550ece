"""RULES.md "The Scorpion family": every variant's rules, layouts and deals, pinned by name."""

from __future__ import annotations

import dataclasses
import json

import pytest

from app.engine import (
    ALL_VARIANTS,
    DealError,
    Game,
    IllegalMove,
    Move,
    PileMove,
    SnapshotError,
    StockEmpty,
    deal_from_number,
    format_deal,
    get_variant,
    parse_deal,
    pile_move,
    variant_metadata,
)
from app.engine.cards import code
from app.engine.solver import SolverUnsupported, solve_deal
from tests.support.cards import make_family_game

# Golden layouts: these are the contract for these numbers in these variants, on every
# machine and in every future version. Never change them. (Columns deepest card first,
# face-down cards included; R reserves, C cells, S stock in dealing order.)
LAYOUTS: dict[tuple[str, int], str] = {
    ("wasp-ii", 1): (
        "7H 9S 4H 8D 8H 5C JH | 6H 9C JS 5H KH 3S 2H | JD 5D 7D 4D 2S AH 6C | KS KD TD "
        "TC JC TH 8C | QS 4C 6S 7S AC 5S AD | KC 6D QC QD QH 9H 3H | 3C AS 4S 2D 8S TS "
        "3D | R  | C  | S 2C 9D 7C"
    ),
    ("wasp-ii", 4294967295): (
        "6D 2H 8D 3C TS 5C 4D | QS 3S JS 8S 5D JC KH | 7C 9D 4H 5H 3H AH JH | KC AS 4C "
        "7S 8H 9S 2S | 9H 2D 2C JD QC 6S 6H | 9C KD AC 4S 6C 7D 8C | 5S QH TC TD 7H AD "
        "TH | R  | C  | S QD KS 3D"
    ),
    ("scorpion-tail", 1): (
        "7H 9S 4H 8D 8H 5C JH | 6H 9C JS 5H KH 3S 2H | JD 5D 7D 4D 2S AH 6C | KS KD TD "
        "TC JC TH 8C | QS 4C 6S 7S AC 5S AD | KC 6D QC QD QH 9H 3H | 3C AS 4S 2D 8S TS "
        "3D | R  | C  | S 2C 9D 7C"
    ),
    ("scorpion-tail", 4294967295): (
        "6D 2H 8D 3C TS 5C 4D | QS 3S JS 8S 5D JC KH | 7C 9D 4H 5H 3H AH JH | KC AS 4C "
        "7S 8H 9S 2S | 9H 2D 2C JD QC 6S 6H | 9C KD AC 4S 6C 7D 8C | 5S QH TC TD 7H AD "
        "TH | R  | C  | S QD KS 3D"
    ),
    ("scorpion-head", 1): (
        "7H 9S 4H 8D 8H 5C JH 6H | 9C JS 5H KH 3S 2H JD 5D | 7D 4D 2S AH 6C KS KD TD | "
        "TC JC TH 8C QS 4C 6S | 7S AC 5S AD KC 6D QC | QD QH 9H 3H 3C AS 4S | 2D 8S TS "
        "3D 2C 9D 7C | R  | C  | S "
    ),
    ("scorpion-head", 4294967295): (
        "6D 2H 8D 3C TS 5C 4D QS | 3S JS 8S 5D JC KH 7C 9D | 4H 5H 3H AH JH KC AS 4C | "
        "7S 8H 9S 2S 9H 2D 2C | JD QC 6S 6H 9C KD AC | 4S 6C 7D 8C 5S QH TC | TD 7H AD "
        "TH QD KS 3D | R  | C  | S "
    ),
    ("three-blind-mice", 1): (
        "7H 9S 4H 8D 8H | 5C JH 6H 9C JS | 5H KH 3S 2H JD | 5D 7D 4D 2S AH | 6C KS KD "
        "TD TC | JC TH 8C QS 4C | 6S 7S AC 5S AD | KC 6D QC QD QH | 9H 3H 3C AS 4S | 2D "
        "8S TS 3D 2C | R 9D 7C | C  | S "
    ),
    ("three-blind-mice", 4294967295): (
        "6D 2H 8D 3C TS | 5C 4D QS 3S JS | 8S 5D JC KH 7C | 9D 4H 5H 3H AH | JH KC AS "
        "4C 7S | 8H 9S 2S 9H 2D | 2C JD QC 6S 6H | 9C KD AC 4S 6C | 7D 8C 5S QH TC | TD "
        "7H AD TH QD | R KS 3D | C  | S "
    ),
    ("farmers-wife", 1): (
        "7H 9S 4H 8D 8H | 5C JH 6H 9C JS | 5H KH 3S 2H JD | 5D 7D 4D 2S AH | 6C KS KD "
        "TD TC | JC TH 8C QS 4C | 6S 7S AC 5S AD | KC 6D QC QD QH | 9H 3H 3C AS 4S | 2D "
        "8S TS 3D 2C | R 9D 7C | C  | S "
    ),
    ("farmers-wife", 4294967295): (
        "6D 2H 8D 3C TS | 5C 4D QS 3S JS | 8S 5D JC KH 7C | 9D 4H 5H 3H AH | JH KC AS "
        "4C 7S | 8H 9S 2S 9H 2D | 2C JD QC 6S 6H | 9C KD AC 4S 6C | 7D 8C 5S QH TC | TD "
        "7H AD TH QD | R KS 3D | C  | S "
    ),
    ("how-they-run", 1): (
        "7H 9S 4H 8D 8H | 5C JH 6H 9C JS | 5H KH 3S 2H JD | 5D 7D 4D 2S AH | 6C KS KD "
        "TD TC | JC TH 8C QS 4C | 6S 7S AC 5S AD | KC 6D QC QD QH | 9H 3H 3C AS 4S | 2D "
        "8S TS 3D 2C | R  | C 9D 7C | S "
    ),
    ("how-they-run", 4294967295): (
        "6D 2H 8D 3C TS | 5C 4D QS 3S JS | 8S 5D JC KH 7C | 9D 4H 5H 3H AH | JH KC AS "
        "4C 7S | 8H 9S 2S 9H 2D | 2C JD QC 6S 6H | 9C KD AC 4S 6C | 7D 8C 5S QH TC | TD "
        "7H AD TH QD | R  | C KS 3D | S "
    ),
}
MULTI: dict[tuple[str, int], str] = {
    ("double-scorpion", 1): (
        "6D 7D JS 8S KC 7H 6C 8S 6S 9S 5S TD KH JD AD QC TC 4H 3S 4S JS 9C JC KS 5C 3C "
        "7C AS 8C 9S 8H 9H QH 3H 6S 7H AC AH AC 6H 6D KD 3D KS JC TH 5C 5H 2H 3C 2S 8D "
        "7S 4C 8D 2D JD 2C 9D 2S 5S 9C 5D 7S 3S 6C 2C AD TD 4C 9D QD 4S 4H QC QD 2D 9H "
        "4D QS KC TS 7D 6H 5H 5D AH TC 2H KD QH 3D 8C QS 3H 8H TH KH JH TS JH AS 4D 7C"
    ),
    ("double-scorpion", 4294967295): (
        "8H AC QH QD 5D 7S QD 4D 8S KD TC 2H AH TD 9H 7S 5H 6C KH 9D 3D 7H 3S AS TC 8D "
        "5C 2C 6S 7D 3C 5D QH 6C 2C KC AD 2S KS JD 5S 6D 4H 7H 4C TD QC 4D 5H TS 9S QC "
        "2H 9H 9C JD KS 6D AC 7D AH 4S JS 9S AD 6H 8C TH JC JH 5C 2S 6H 2D QS 5S 9D 8H "
        "3C KH 4C JC KC 8S 9C 2D QS KD 7C 3S 4S JS 7C 6S JH 8C 3H 8D 4H TH AS 3H TS 3D"
    ),
    ("triple-scorpion", 1): (
        "4S 4S 8H TH 4D 5H AC TD 7S AC 9S 3C 4H KH KH TC 3D AS 8C 3D 6S 6C 9H 4C 5S TS "
        "KC QH 6D 9H JC 9S 5S 3C KD 7C 2H 6H 2C KS 4H 7H JD 3C TC 2C 2H KS QS TS JD 6D "
        "9D QS JH 8S 2H AD JD 2C 8S 9D KD AS QC TD 3H 6C QS 5C JC 5H 2D JH 8H 9H 5D 5H "
        "2D 3H TS KD JS 2S 7S JC JS 4D 3H KC QC TH 6S 5S 4C QC 7S AD 4C JH QD AH 5D 7D "
        "3S QH AH 4H 8H 8D 8D 9C KC 6D TC KS 3S JS 6H 2S 5C QD 3D 9D 9C AS TD AC 8C 9C "
        "2D 7H 8S 7H 7D AD 7D 5C 2S 4S 6H 5D QD QH KH AH 6S 9S 8C 7C 6C 8D 4D TH 3S 7C"
    ),
    ("triple-scorpion", 4294967295): (
        "4H 6D 3S 6H 9H 7C 4S 6S 5S 2H 8D 6C JD KS 8H 8H 4S AS TD KS 6C 4D AD 7H 7D JH "
        "TD 7D 9H TC KC 8H AD QS 2C KD JC JH 3C 7S AS 7D 6S KC 5C QC 5D 8S AH JD 2S 6D "
        "5C 4C TC 2S 3H 7C AH AC TH QC 9D 9D 2D JS AD TH 7C KD QH TC 5D 8D AH 3S 6D 3H "
        "5S 3S QS JS 8D 7S QD KH TS 8C 2D 4H KH 4D 5S 6H TS AS TH TS 5C JC QD 2S 4H QC "
        "9C 9H 5D QH 6H 4D 2D 2C 8S KC 9C 9S AC 9D KH 8S JH 7H 5H 5H QS 3C 9S 9S 4S 8C "
        "AC 5H 3C 3H 8C 7H KS QD 2H 7S KD 3D 4C 2H 6C 9C 2C 3D JC TD JS 4C QH 6S JD 3D"
    ),
}


def _layout(g: Game) -> str:
    parts = [" ".join(code(c) for c in col) for col in g.cols]
    parts.append("R " + " ".join(code(c) for c in g.reserve if c >= 0))
    parts.append("C " + " ".join(code(c) for c in g.cells if c >= 0))
    parts.append("S " + " ".join(code(c) for c in g.stock))
    return " | ".join(parts)


def _tops(g: Game) -> list[str | None]:
    return [col[-1] if col else None for col in g.public_view().columns]


# -- the family as data ----------------------------------------------------------------------

# RULES.md's table, typed out independently: id, name, decks, heights, face down, stock,
# reserves, cells.
TABLE = [
    ("scorpion", "Scorpion", 1, [7] * 7, [3, 3, 3, 3, 0, 0, 0], 3, 0, 0),
    ("scorpion-ii", "Scorpion II", 1, [7] * 7, [3, 3, 3, 0, 0, 0, 0], 3, 0, 0),
    ("wasp", "Wasp", 1, [7] * 7, [3, 3, 3, 3, 0, 0, 0], 3, 0, 0),
    ("wasp-ii", "Wasp II", 1, [7] * 7, [3, 3, 3, 0, 0, 0, 0], 3, 0, 0),
    ("scorpion-tail", "Scorpion Tail", 1, [7] * 7, [3, 3, 3, 3, 0, 0, 0], 3, 0, 0),
    ("scorpion-head", "Scorpion Head", 1, [8, 8, 8, 7, 7, 7, 7], [0, 0, 0, 4, 4, 4, 4], 0, 0, 4),
    ("three-blind-mice", "Three Blind Mice", 1, [5] * 10, [0] * 7 + [3] * 3, 0, 2, 0),
    ("farmers-wife", "Farmer's Wife", 1, [5] * 10, [0] * 7 + [3] * 3, 0, 2, 0),
    ("how-they-run", "How They Run", 1, [5] * 10, [0] * 7 + [3] * 3, 0, 0, 2),
    ("double-scorpion", "Double Scorpion", 2, [10] * 10, [4] * 5 + [0] * 5, 4, 0, 0),
    ("triple-scorpion", "Triple Scorpion", 3, [12] * 13, [5] * 5 + [0] * 8, 0, 0, 0),
]


def test_the_family_is_listed_in_rules_table_order_with_its_metadata() -> None:
    assert list(ALL_VARIANTS) == [row[0] for row in TABLE]
    meta = variant_metadata()
    assert [m["id"] for m in meta] == [row[0] for row in TABLE]
    for m, (vid, title, decks, heights, _down, stock, res, cells) in zip(meta, TABLE, strict=True):
        assert m == {
            "id": vid,
            "name": title,
            "decks": decks,
            "columns": len(heights),
            "stock": stock,
            "reserves": res,
            "cells": cells,
            "runs_needed": 4 * decks,
            "description": m["description"],
        }
        assert m["description"] and "\n" not in m["description"]
        assert get_variant(vid).title == title


@pytest.mark.parametrize("row", TABLE, ids=[row[0] for row in TABLE])
def test_each_variant_opening_layout_follows_the_table(row: tuple) -> None:
    vid, _title, decks, heights, down, stock, res, cells = row
    game = Game.new(vid, deal_from_number(5, vid))
    view = game.public_view()
    assert [len(c) for c in view.columns] == heights
    assert [sum(x is None for x in c) for c in view.columns] == down
    for col, d in zip(view.columns, down, strict=True):
        assert None not in col[d:]
    assert view.stock == stock
    assert view.runs_needed == 4 * decks
    if vid == "how-they-run":
        assert view.reserves == [] and None not in view.cells and len(view.cells) == 2
    else:
        assert len(view.reserves) == res and None not in view.reserves
        assert view.cells == [None] * cells


# -- deals -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(LAYOUTS))
def test_new_variant_deal_numbers_give_the_same_layout_forever(key: tuple[str, int]) -> None:
    variant, number = key
    assert _layout(Game.new(variant, deal_from_number(number, variant))) == LAYOUTS[key]


@pytest.mark.parametrize("key", sorted(MULTI))
def test_two_and_three_deck_deal_numbers_give_the_same_deal_forever(key: tuple[str, int]) -> None:
    variant, number = key
    assert format_deal(deal_from_number(number, variant)) == MULTI[key]


def test_one_deck_variants_share_the_base_shuffle() -> None:
    for vid in ("wasp-ii", "scorpion-head", "how-they-run"):
        assert deal_from_number(77, vid) == deal_from_number(77)


@pytest.mark.parametrize("vid", list(ALL_VARIANTS))
def test_each_deal_holds_every_card_exactly_decks_times_and_round_trips(vid: str) -> None:
    decks = get_variant(vid).decks
    for number in (1, 99, 4294967295):
        deal = deal_from_number(number, vid)
        assert sorted(deal) == sorted(list(range(52)) * decks)
        assert parse_deal(format_deal(deal), vid) == deal


def test_a_card_seen_more_often_than_the_decks_allow_is_named_with_its_positions() -> None:
    tokens = format_deal(deal_from_number(3, "double-scorpion")).split()
    first, second = [k + 1 for k, t in enumerate(tokens) if t == "7H"]
    assert first > 12  # deal 3: both copies of 7H lie after position 12
    tokens[11] = "7H"
    with pytest.raises(DealError) as err:
        parse_deal(" ".join(tokens), "double-scorpion")
    assert str(err.value) == (
        f"7H appears 3 times but Double Scorpion uses 2 decks: positions 12, {first} and {second}."
    )
    assert err.value.position == second


def test_a_multi_deck_deal_of_the_wrong_length_is_refused() -> None:
    text = format_deal(deal_from_number(3, "triple-scorpion"))
    with pytest.raises(
        DealError,
        match=r"A Triple Scorpion deal has exactly 156 cards \(3 decks\); this one has 155",
    ):
        parse_deal(text.rsplit(" ", 1)[0], "triple-scorpion")
    with pytest.raises(DealError, match="appears twice"):
        parse_deal(text)  # without the variant: one deck, so a second copy is refused
    with pytest.raises(DealError):
        Game.new("double-scorpion", deal_from_number(3))


def test_deal_string_order_columns_then_reserves_then_stock() -> None:
    tokens = format_deal(deal_from_number(8)).split()
    tbm = Game.new("three-blind-mice", parse_deal(" ".join(tokens), "three-blind-mice"))
    view = tbm.public_view()
    assert view.columns[0] == tokens[0:5] and view.columns[6] == tokens[30:35]
    assert view.columns[9] == [None, None, None] + tokens[48:50]
    assert view.reserves == tokens[50:52]
    htr = Game.new("how-they-run", parse_deal(" ".join(tokens), "how-they-run"))
    assert htr.public_view().cells == tokens[50:52]


def test_stock_goes_to_columns_one_to_four_in_double_scorpion() -> None:
    tokens = format_deal(deal_from_number(21, "double-scorpion")).split()
    game = Game.new("double-scorpion", parse_deal(" ".join(tokens), "double-scorpion"))
    before = [len(c) for c in game.cols]
    game.deal()
    view = game.public_view()
    assert [len(c) for c in view.columns] == [n + 1 for n in before[:4]] + before[4:]
    assert [view.columns[c][-1] for c in range(4)] == tokens[100:104]
    assert view.stock == 0
    game.undo()
    assert [len(c) for c in game.cols] == before and len(game.stock) == 4


def test_variants_without_a_stock_refuse_the_deal() -> None:
    for vid in ("scorpion-head", "three-blind-mice", "triple-scorpion"):
        game = Game.new(vid, deal_from_number(2, vid))
        assert not game.can_deal
        with pytest.raises(StockEmpty, match="has no stock"):
            game.deal()


# -- alternate colours -----------------------------------------------------------------------


@pytest.mark.parametrize("vid", ["scorpion-tail", "farmers-wife"])
def test_alternate_colour_lands_on_the_next_higher_card_of_the_other_colour(vid: str) -> None:
    game = make_family_game(vid, {0: "8S", 1: "8H", 2: "7H", 3: "7C", 4: "8D"})
    assert Move(2, 0, 0) in game.hints()  # 7H on 8S
    assert Move(3, 0, 1) in game.hints() and Move(3, 0, 4) in game.hints()  # 7C on 8H, 8D
    with pytest.raises(IllegalMove, match="can only go on a black eight"):
        game.move(2, 0, 1)  # 7H on 8H: same colour
    with pytest.raises(IllegalMove, match="can only go on a red eight"):
        game.move(3, 0, 0)  # 7C on 8S
    game.move(2, 0, 0)
    assert game.public_view().columns[0] == ["8S", "7H"]


def test_same_suit_variants_refuse_an_alternate_colour_landing() -> None:
    game = make_family_game("three-blind-mice", {0: "8S", 1: "7H"})
    with pytest.raises(IllegalMove, match="can only go on the eight of hearts"):
        game.move(1, 0, 0)


def test_an_alternate_colour_run_of_mixed_suits_is_removed_and_named_by_its_king() -> None:
    run = "KS QH JC TD 9S 8H 7C 6D 5S 4H 3C 2D"
    game = make_family_game("scorpion-tail", {0: "5C " + run, 1: "AH", 2: "AS"}, hidden={0: 1})
    with pytest.raises(IllegalMove):
        game.move(1, 0, 0)  # AH is red, like 2D
    game.move(2, 0, 0)  # AS completes K..A in alternate colours
    assert game.completed == [0]  # named by the King's suit: spades
    assert game.public_view().columns[0] == ["5C"]  # removed; the face-down card turned up
    game.undo()
    assert game.public_view().columns[0] == [None, *run.split()]
    assert game.public_view().columns[2] == ["AS"]


def test_a_same_colour_step_breaks_an_alternate_run() -> None:
    game = make_family_game("farmers-wife", {0: "KS QH JC TD 9S 8H 7C 6D 5S 4H 3C 2H", 1: "AS"})
    game.move(1, 0, 0)
    assert game.completed == [0]
    # 4H then 3D: two reds in a row, so K..A is no run here.
    broken = make_family_game("farmers-wife", {0: "KS QH JC TD 9S 8H 7C 6D 5S 4H 3D 2C", 1: "AH"})
    broken.move(1, 0, 0)
    assert broken.completed == [] and len(broken.cols[0]) == 13


# -- empty columns ---------------------------------------------------------------------------


def test_wasp_ii_empty_column_accepts_any_card_or_group() -> None:
    game = make_family_game("wasp-ii", {0: "", 1: "5C QH 3D"})
    assert Move(1, 1, 0) in game.hints()
    game.move(1, 1, 0)
    assert game.public_view().columns[0] == ["QH", "3D"]


@pytest.mark.parametrize(
    "vid",
    ["scorpion-tail", "scorpion-head", "three-blind-mice", "double-scorpion", "triple-scorpion"],
)
def test_other_variants_empty_column_takes_only_a_king_led_group(vid: str) -> None:
    game = make_family_game(vid, {0: "", 1: "5C QH 3D", 2: "4C KD 2S"})
    with pytest.raises(IllegalMove, match="Only a King"):
        game.move(1, 1, 0)
    assert Move(2, 1, 0) in game.hints()
    game.move(2, 1, 0)
    assert game.public_view().columns[0] == ["KD", "2S"]


def test_whole_column_to_empty_column_is_useful_only_while_the_stock_reaches_it() -> None:
    # Double Scorpion: the deal reaches columns 1-4 (0-3 here).
    game = make_family_game("double-scorpion", {3: "KH", 6: "", 7: "KS"}, stock="AS AH AD AC")
    assert Move(3, 0, 6) in game.hints()  # column 4 is reached by the deal
    assert Move(7, 0, 6) in game.legal_moves() and Move(7, 0, 6) not in game.hints()
    # No stock: never useful.
    for vid in ("three-blind-mice", "triple-scorpion", "scorpion-head"):
        g = make_family_game(vid, {0: "KH", 1: ""})
        assert Move(0, 0, 1) in g.legal_moves() and Move(0, 0, 1) not in g.hints()


# -- reserves --------------------------------------------------------------------------------


def test_a_reserve_card_plays_onto_a_column_where_it_fits() -> None:
    game = make_family_game("three-blind-mice", {0: "8S", 1: "4D"}, reserves=["7S", "9H"])
    hint = PileMove(0, 0, 0, "reserve", "column")
    assert hint in game.hints()
    game.move(0, 0, 0, "reserve", "column")
    view = game.public_view()
    assert view.columns[0] == ["8S", "7S"] and view.reserves == [None, "9H"]
    game.undo()
    assert game.public_view().reserves == ["7S", "9H"]
    game.redo()
    assert game.public_view().reserves == [None, "9H"]


def test_a_reserve_refuses_a_card() -> None:
    game = make_family_game("three-blind-mice", {0: "8S", 1: "4D"}, reserves=[None, "9H"])
    with pytest.raises(IllegalMove, match="Nothing can ever be put onto a reserve"):
        game.move(1, 0, 0, "column", "reserve")
    with pytest.raises(IllegalMove, match="Three Blind Mice has no free cells"):
        game.move(1, 0, 0, "reserve", "cell")
    with pytest.raises(IllegalMove, match="empty"):
        game.move(0, 0, 1, "reserve", "column")
    with pytest.raises(IllegalMove, match="can only go on the ten of hearts"):
        game.move(1, 0, 0, "reserve", "column")


def test_a_reserve_king_may_go_to_an_empty_column_and_hints_are_per_target() -> None:
    game = make_family_game("farmers-wife", {0: "", 1: "", 2: "QS"}, reserves=["KD", "KC"])
    hints = set(game.hints())
    for slot in (0, 1):
        for col in (0, 1):
            assert PileMove(slot, 0, col, "reserve", "column") in hints
    assert PileMove(1, 0, 2, "reserve", "column") not in hints  # KC on QS: a King on a card


def test_a_pile_the_variant_lacks_is_refused() -> None:
    game = make_family_game("scorpion-head", {0: "8S", 1: "7S"})
    with pytest.raises(IllegalMove, match="has no reserve"):
        game.move(0, 0, 0, "reserve", "column")
    base = Game.new("scorpion", deal_from_number(1))
    with pytest.raises(IllegalMove, match="has no free cells"):
        base.move(0, 6, 0, "column", "cell")
    with pytest.raises(IllegalMove, match="no pile called"):
        base.move(0, 6, 0, "column", "tableau")


# -- free cells ------------------------------------------------------------------------------


def test_scorpion_head_eight_and_seven_card_layout_and_four_empty_cells() -> None:
    game = Game.new("scorpion-head", deal_from_number(12, "scorpion-head"))
    view = game.public_view()
    assert [len(c) for c in view.columns] == [8, 8, 8, 7, 7, 7, 7]
    assert [c[:4] for c in view.columns[3:]] == [[None] * 4] * 4
    assert view.cells == [None, None, None, None] and view.reserves == [] and view.stock == 0


def test_how_they_run_cells_start_full_and_then_hold_any_exposed_card() -> None:
    tokens = format_deal(deal_from_number(30)).split()
    game = Game.new("how-they-run", parse_deal(" ".join(tokens), "how-they-run"))
    assert game.public_view().cells == tokens[50:52]
    assert not any(m.to_pile == "cell" for m in game.legal_moves())  # both cells full
    g = make_family_game("how-they-run", {0: "8S", 1: "4D 9C"}, cells=["7S", "KH"])
    g.move(0, 0, 0, "cell", "column")
    assert g.public_view().cells == [None, "KH"]
    g.move(1, 1, 0, "column", "cell")
    assert g.public_view().cells == ["9C", "KH"]


def test_a_cell_holds_one_card_and_takes_only_an_exposed_card() -> None:
    game = make_family_game(
        "scorpion-head", {0: "8S 3H 2C", 1: "4D"}, cells=["9D", None, None, None]
    )
    with pytest.raises(IllegalMove, match="already holds a card"):
        game.move(1, 0, 0, "column", "cell")
    with pytest.raises(IllegalMove, match="exposed card of a column, alone"):
        game.move(0, 1, 1, "column", "cell")
    with pytest.raises(IllegalMove, match="never moves from one free cell to another"):
        game.move(0, 0, 1, "cell", "cell")
    game.move(0, 2, 1, "column", "cell")
    assert game.public_view().cells == ["9D", "2C", None, None]
    assert game.public_view().columns[0] == ["8S", "3H"]


def test_a_card_that_may_go_to_either_of_two_empty_cells_is_two_hints() -> None:
    game = make_family_game("scorpion-head", {0: "8S", 1: "4D"}, cells=["9D", None, "QC", None])
    hints = game.hints()
    assert PileMove(0, 0, 1, "column", "cell") in hints
    assert PileMove(0, 0, 3, "column", "cell") in hints
    assert PileMove(0, 0, 0, "column", "cell") not in hints
    assert len(hints) == len(set(hints))


def test_a_cell_card_goes_onto_a_column_where_it_fits_or_a_king_to_an_empty_one() -> None:
    game = make_family_game("scorpion-head", {0: "8S", 1: ""}, cells=["7S", "KH", "5D", None])
    hints = set(game.hints())
    assert PileMove(0, 0, 0, "cell", "column") in hints
    assert PileMove(1, 0, 1, "cell", "column") in hints
    assert not any(m.from_pile == "cell" and m.from_column == 2 for m in hints)
    with pytest.raises(IllegalMove, match="Only a King can go into an empty column"):
        game.move(2, 0, 1, "cell", "column")
    game.move(1, 0, 1, "cell", "column")
    assert game.public_view().columns[1] == ["KH"]


def test_moving_the_last_card_above_a_face_down_card_into_a_cell_reveals_it() -> None:
    game = make_family_game("scorpion-head", {3: "2H 5S"}, hidden={3: 1})
    game.move(3, 1, 0, "column", "cell")
    assert game.public_view().columns[3] == ["2H"]
    game.undo()
    assert game.public_view().columns[3] == [None, "5S"]
    assert game.public_view().cells == [None] * 4


def test_pile_moves_map_onto_the_api_fields_and_actions() -> None:
    m = pile_move("cell", 2, 0, "column", 5)
    assert isinstance(m, PileMove) and isinstance(m, Move)
    assert (m.from_pile, m.from_column, m.from_index, m.to_pile, m.to_column) == (
        "cell",
        2,
        0,
        "column",
        5,
    )
    assert tuple(m) == (2, 0, 5, "cell", "column") and ("move", *m)[4:] == ("cell", "column")
    assert m._asdict()["from_pile"] == "cell" and "PileMove(" in repr(m)
    plain = pile_move("column", 1, 2, "column", 3)
    assert type(plain) is Move and tuple(plain) == (1, 2, 3)
    assert (plain.from_pile, plain.to_pile) == ("column", "column")
    assert m != Move(2, 0, 5)


# -- several decks ---------------------------------------------------------------------------


def test_two_deck_run_removal_with_duplicates() -> None:
    run = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    game = make_family_game("double-scorpion", {0: "AD " + run, 1: "AS", 2: "AS", 3: run})
    assert Move(1, 0, 0) in game.hints() and Move(2, 0, 0) in game.hints()
    assert Move(1, 0, 3) in game.hints() and Move(2, 0, 3) in game.hints()
    game.move(2, 0, 0)
    view = game.public_view()
    assert view.columns[0] == ["AD"] and game.completed == [0]
    assert view.columns[1] == ["AS"] and view.columns[2] == []
    game.move(1, 0, 3)  # the other copy completes the other run
    assert game.completed == [0, 0] and game.public_view().columns[3] == []
    snap = Game.from_snapshot(game.to_snapshot())
    assert snap.position_key() == game.position_key()
    game.undo()
    game.undo()
    assert game.public_view().columns[0] == ["AD", *run.split()]
    assert game.public_view().columns[1:3] == [["AS"], ["AS"]]
    assert sorted(game.all_cards()) == list(range(104))


def test_a_run_of_copies_from_both_decks_is_a_run() -> None:
    game = make_family_game(
        "double-scorpion",
        {0: "KH QH JH TH 9H 8H 7H", 1: "KH QH JH TH 9H 8H 7H 6H", 2: "5H 4H 3H 2H AH"},
    )
    game.move(1, 7, 0)  # the second deck's 6H on the first deck's 7H
    game.move(2, 0, 0)
    assert game.completed == [1]
    assert game.public_view().columns[0] == []
    assert game.public_view().columns[1] == ["KH", "QH", "JH", "TH", "9H", "8H", "7H"]
    game.undo()
    assert game.public_view().columns[0] == ["KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H"]
    assert game.public_view().columns[2] == ["5H", "4H", "3H", "2H", "AH"]


def test_triple_scorpion_wins_with_twelve_runs() -> None:
    game = Game.new("triple-scorpion", deal_from_number(4, "triple-scorpion"))
    assert game.runs_needed == 12 and game.public_view().runs_needed == 12
    assert game.status == "playing"


# -- snapshots, solver -----------------------------------------------------------------------


def test_the_base_snapshot_gains_no_field() -> None:
    data = json.loads(Game.new("scorpion", deal_from_number(1)).to_snapshot())
    assert set(data) == {"v", "variant", "cols", "hidden", "stock", "done", "hist", "fut"}


@pytest.mark.parametrize("vid", list(ALL_VARIANTS))
def test_family_snapshots_round_trip_with_history(vid: str) -> None:
    game = Game.new(vid, deal_from_number(6, vid))
    for _ in range(25):
        hints = game.hints()
        if hints:
            game.move(*hints[len(hints) // 2])
        elif game.can_deal:
            game.deal()
    game.undo()
    again = Game.from_snapshot(game.to_snapshot())
    assert again.position_key() == game.position_key()
    assert again.history == game.history and again.future == game.future
    again.redo()
    game.redo()
    assert again.position_key() == game.position_key()


def test_a_family_snapshot_missing_its_cells_is_refused() -> None:
    data = json.loads(Game.new("scorpion-head", deal_from_number(6, "scorpion-head")).to_snapshot())
    data["cells"] = [-1]
    with pytest.raises(SnapshotError, match="reserves and cells"):
        Game.from_snapshot(json.dumps(data))
    data["cells"] = [-1, -1, -1, 0]  # the ace of spades twice
    with pytest.raises(SnapshotError, match="each card exactly once"):
        Game.from_snapshot(json.dumps(data))


def test_the_solver_covers_every_variant_and_refuses_an_unknown_one() -> None:
    for vid in ("scorpion-head", "double-scorpion", "scorpion-tail"):
        answer = solve_deal(vid, deal_from_number(1, vid), None, max_nodes=2_000)
        assert answer.verdict in ("win", "loss", "unknown")
    stranger = dataclasses.replace(get_variant("scorpion-head"), name="scorpion-body")
    with pytest.raises(SolverUnsupported, match="does not cover"):
        solve_deal(stranger, deal_from_number(1, "scorpion-head"), 0.1)


def test_a_pile_move_survives_pickling_and_copying() -> None:
    import copy
    import pickle

    m = PileMove(3, 4, 1, "column", "cell")
    assert pickle.loads(pickle.dumps(m)) == m and type(pickle.loads(pickle.dumps(m))) is PileMove
    assert copy.deepcopy(m) == m
